import type { VisitDetails } from '../visits/visit.ts';

/** The events a hook may ask for: what happens to its owner's links. */
export const LINK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'] as const;

export type LinkEvent = (typeof LINK_EVENTS)[number];

/** What a delivery carries: a link's event, or the test button's ping. */
export type DeliveryEvent = LinkEvent | 'ping';

/** A user's webhook: where their links' events are POSTed, signed with its secret. */
export interface Webhook {
  id: number;
  userId: number;
  url: string;
  events: readonly LinkEvent[];
  /** The HMAC key: shown once, when the hook is made, and kept to sign every delivery. */
  secret: string;
  enabled: boolean;
  createdAt: Date;
}

export type NewWebhook = Omit<Webhook, 'id'>;

/** A click as a link.clicked event carries it: the raw visit's facts, never the visitor's address. */
export interface Click extends VisitDetails {
  at: Date;
}

/**
 * A link's event as the store's triggers record it, in the transaction that changed the link or wrote the
 * visit; `click` is the visit of a link.clicked (null when it was pruned before the event was read).
 */
export interface RecordedEvent {
  id: number;
  event: LinkEvent;
  linkId: number;
  ownerId: number;
  at: Date;
  click: Click | null;
}

/** One POST to one hook, tried until it is answered with a 2xx or a day has passed. */
export interface Delivery {
  id: number;
  hookId: number;
  event: DeliveryEvent;
  /** The JSON body, as signed and sent on every attempt; emptied once delivered. */
  body: string;
  createdAt: Date;
  attempts: number;
  /** When it is next tried; null once delivered or given up. */
  nextAt: Date | null;
  lastStatus: number | null;
  /** Why the last attempt failed: the error, or the start of the answer's body. */
  lastError: string | null;
  deliveredAt: Date | null;
}

export type NewDelivery = Pick<Delivery, 'hookId' | 'event' | 'body' | 'createdAt'> & { nextAt: Date };

/** A delivery due, with what sending it needs of its hook. */
export interface DueDelivery extends Delivery {
  url: string;
  secret: string;
}

/** What an attempt ended with, as the store keeps it. */
export interface AttemptOutcome {
  at: Date;
  status: number | null;
  error: string | null;
  delivered: boolean;
  /** The next attempt; null when delivered or given up. */
  nextAt: Date | null;
}

/** Whether `name` is one of the events a hook may ask for. */
export function isLinkEvent(name: string): name is LinkEvent {
  return (LINK_EVENTS as readonly string[]).includes(name);
}
