import type { AuditTrail } from '../audit/audit.ts';
import type { Actor } from '../auth/actor.ts';
import { AppError } from '../core/errors.ts';
import type { UrlRules } from '../links/url-rules.ts';
import type { WebhookStore } from '../store/ports.ts';
import { webhookUrl } from './targets.ts';
import { isLinkEvent, LINK_EVENTS, type Delivery, type LinkEvent, type Webhook } from './webhook.ts';

/** Hooks one user may have: enough for every receiver a person runs, few enough that a turn stays short. */
export const MAX_HOOKS = 20;

/** The secret's prefix, so that a leaked one is recognised for what it is. */
const SECRET_PREFIX = 'whsec_';

export interface WebhookManagement {
  /** The actor's own hooks, oldest first (an admin's too: nobody sees another's). */
  list(actor: Actor): Promise<Webhook[]>;
  /**
   * Adds a hook for the actor's links: its URL validated as a link's target (targets.ts), its events one or
   * more of LINK_EVENTS. Returns it with its secret, which is shown this once. Throws AppError('invalid').
   */
  add(actor: Actor, url: unknown, events: unknown): Promise<{ hook: Webhook; secret: string }>;
  /**
   * Turns one of the actor's hooks on or off: off, it records no events (what happens meanwhile is never sent)
   * and its deliveries still due wait. Throws AppError('not_found').
   */
  setEnabled(actor: Actor, id: number, enabled: boolean): Promise<Webhook>;
  /** Deletes one of the actor's hooks and its delivery log. Throws AppError('not_found'). */
  remove(actor: Actor, id: number): Promise<void>;
  /** Sends one of the actor's hooks a `ping` at its next turn, through the same signed, retried delivery. */
  ping(actor: Actor, id: number): Promise<void>;
  /** The newest `limit` deliveries of one of the actor's hooks. Throws AppError('not_found'). */
  deliveries(actor: Actor, id: number, limit: number): Promise<Delivery[]>;
}

export interface ManagementDeps {
  store: WebhookStore;
  rules: UrlRules;
  allowPrivate: boolean;
  now(): number;
  random(size: number): Buffer;
  /** Records each hook added and deleted (never its secret). */
  audit: Pick<AuditTrail, 'record'>;
}

/** The users' webhooks: each person adds, tests and deletes their own. */
export function webhookManagement({ store, rules, allowPrivate, now, random, audit }: ManagementDeps): WebhookManagement {
  const own = async (actor: Actor, id: number): Promise<Webhook> => {
    const hook = Number.isSafeInteger(id) ? await store.webhookById(id) : undefined;
    if (!hook || hook.userId !== actor.userId) throw new AppError('not_found', `you have no webhook ${id}`);
    return hook;
  };

  return {
    list: (actor) => store.listWebhooks(actor.userId),

    async add(actor, url, events) {
      const href = webhookUrl(url, rules, allowPrivate);
      const chosen = parseEvents(events);
      if ((await store.listWebhooks(actor.userId)).length >= MAX_HOOKS)
        throw new AppError('invalid', `you have ${MAX_HOOKS} webhooks already, the most one may have; delete one first`);
      const secret = SECRET_PREFIX + random(24).toString('base64url');
      const hook = await store.insertWebhook({
        userId: actor.userId,
        url: href,
        events: chosen,
        secret,
        enabled: true,
        createdAt: new Date(now()),
      });
      await audit.record(actor, 'webhook.create', { kind: 'webhook', id: hook.id, label: hook.url }, { events: chosen.join(' ') });
      return { hook, secret };
    },

    async setEnabled(actor, id, enabled) {
      const hook = await own(actor, id);
      if (!(await store.setWebhookEnabled(hook.id, actor.userId, enabled))) throw new AppError('not_found', `you have no webhook ${id}`);
      return { ...hook, enabled };
    },

    async remove(actor, id) {
      const hook = await own(actor, id);
      if (!(await store.deleteWebhook(hook.id, actor.userId))) throw new AppError('not_found', `you have no webhook ${id}`);
      await audit.record(actor, 'webhook.delete', { kind: 'webhook', id: hook.id, label: hook.url });
    },

    async ping(actor, id) {
      const hook = await own(actor, id);
      const at = new Date(now());
      const body = JSON.stringify({ event: 'ping', at: at.toISOString(), hook: { id: hook.id, url: hook.url, events: hook.events } });
      await store.addDeliveries([], [{ hookId: hook.id, event: 'ping', body, createdAt: at, nextAt: at }]);
    },

    async deliveries(actor, id, limit) {
      const hook = await own(actor, id);
      return store.deliveriesOf(hook.id, limit);
    },
  };
}

/** A list of one or more of LINK_EVENTS; each once, in LINK_EVENTS' order. */
function parseEvents(names: unknown): LinkEvent[] {
  if (!Array.isArray(names)) throw invalidEvents(`events must be a list of ${LINK_EVENTS.join(', ')}`);
  if (names.length === 0) throw invalidEvents('events must name at least one event');
  for (const name of names as unknown[]) {
    if (typeof name !== 'string' || !isLinkEvent(name))
      throw invalidEvents(`events may only name ${LINK_EVENTS.join(', ')}; got ${(JSON.stringify(name) ?? String(name)).slice(0, 40)}`);
  }
  return LINK_EVENTS.filter((e) => (names as string[]).includes(e));
}

function invalidEvents(message: string): AppError {
  return new AppError('invalid', message, 'events');
}
