import type { VisitDetails } from '../visits/visit.ts';
import { isLinkEvent, type Delivery, type DeliveryEvent, type DueDelivery, type RecordedEvent, type Webhook } from '../webhooks/webhook.ts';

// The webhooks' rows as both backends read them: times in milliseconds, flags 0/1, events space-separated.

export interface WebhookRow {
  id: number;
  userId: number;
  url: string;
  events: string;
  secret: string;
  enabled: number;
  createdAt: number;
}

export interface DeliveryRow {
  id: number;
  hookId: number;
  event: string;
  body: string;
  createdAt: number;
  attempts: number;
  nextAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
}

export interface EventRow extends VisitDetails {
  id: number;
  event: string;
  linkId: number;
  ownerId: number;
  at: number;
  visitId: number | null;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    userId: row.userId,
    url: row.url,
    // An event this build does not know (written by a newer one) is left out rather than sent.
    events: row.events.split(' ').filter(isLinkEvent),
    secret: row.secret,
    enabled: row.enabled === 1,
    createdAt: new Date(row.createdAt),
  };
}

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    hookId: row.hookId,
    event: row.event as DeliveryEvent,
    body: row.body,
    createdAt: new Date(row.createdAt),
    attempts: row.attempts,
    nextAt: row.nextAt === null ? null : new Date(row.nextAt),
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    deliveredAt: row.deliveredAt === null ? null : new Date(row.deliveredAt),
  };
}

export function toDueDelivery(row: DeliveryRow & { url: string; secret: string }): DueDelivery {
  return { ...toDelivery(row), url: row.url, secret: row.secret };
}

/** An event row; undefined for an event this build does not know. */
export function toRecordedEvent(row: EventRow): RecordedEvent | undefined {
  if (!isLinkEvent(row.event)) return undefined;
  const click =
    row.event === 'link.clicked' && row.visitId !== null
      ? {
          at: new Date(row.at),
          bot: row.bot,
          referrer: row.referrer,
          browser: row.browser,
          os: row.os,
          device: row.device,
          country: row.country,
          language: row.language,
        }
      : null;
  return { id: row.id, event: row.event, linkId: row.linkId, ownerId: row.ownerId, at: new Date(row.at), click };
}
