import type { WebhookStore } from '../ports.ts';
import {
  toDelivery,
  toDueDelivery,
  toRecordedEvent,
  toWebhook,
  type DeliveryRow,
  type EventRow,
  type WebhookRow,
} from '../webhook-rows.ts';
import type { RecordedEvent } from '../../webhooks/webhook.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** The webhooks, their events and deliveries, each write its own transaction. */
export function createPostgresWebhookStore(db: Database): WebhookStore {
  const run = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query(sql, params)).rowCount ?? 0;

  return {
    listWebhooks: async (userId) => (await db.query<WebhookRow>(q.LIST_WEBHOOKS, [userId ?? null])).rows.map(toWebhook),
    webhookById: async (id) => {
      const row = (await db.query<WebhookRow>(q.WEBHOOK_BY_ID, [id])).rows[0];
      return row && toWebhook(row);
    },
    insertWebhook: async (hook) =>
      toWebhook(
        (
          await db.query<WebhookRow>(q.INSERT_WEBHOOK, [
            hook.userId,
            hook.url,
            hook.events.join(' '),
            hook.secret,
            hook.enabled ? 1 : 0,
            hook.createdAt.getTime(),
          ])
        ).rows[0]!,
      ),
    setWebhookEnabled: async (id, userId, enabled) => (await run(q.SET_WEBHOOK_ENABLED, [enabled ? 1 : 0, id, userId])) === 1,
    deleteWebhook: async (id, userId) => (await run(q.DELETE_WEBHOOK, [id, userId])) === 1,
    pendingEvents: async (limit) =>
      (await db.query<EventRow>(q.PENDING_WEBHOOK_EVENTS, [limit])).rows
        .map(toRecordedEvent)
        .filter((e): e is RecordedEvent => e !== undefined),
    addDeliveries: (eventIds, deliveries) =>
      db
        .transaction(async (tx) => {
          // A node that removed these events first holds their rows until it commits: this one then finds fewer.
          if (((await tx.query(q.DELETE_WEBHOOK_EVENTS, [eventIds])).rowCount ?? 0) !== eventIds.length) throw new EventTaken();
          if (deliveries.length > 0) {
            await tx.query(q.INSERT_DELIVERIES, [
              deliveries.map((d) => d.hookId),
              deliveries.map((d) => d.event),
              deliveries.map((d) => d.body),
              deliveries.map((d) => d.createdAt.getTime()),
              deliveries.map((d) => d.nextAt.getTime()),
            ]);
          }
          return true;
        })
        .catch((err: unknown) => {
          if (err instanceof EventTaken) return false;
          throw err;
        }),
    dueDeliveries: async (now, limit) =>
      (await db.query<DeliveryRow & { url: string; secret: string }>(q.DUE_DELIVERIES, [now.getTime(), limit])).rows.map(toDueDelivery),
    claimDelivery: async (id, due, until) => (await run(q.CLAIM_DELIVERY, [id, due.getTime(), until.getTime()])) === 1,
    recordAttempt: async (id, outcome) =>
      void (await run(q.RECORD_ATTEMPT, [
        id,
        outcome.status,
        outcome.error,
        outcome.delivered,
        outcome.at.getTime(),
        outcome.nextAt?.getTime() ?? null,
      ])),
    deliveriesOf: async (hookId, limit) => (await db.query<DeliveryRow>(q.DELIVERIES_OF, [hookId, limit])).rows.map(toDelivery),
    pruneDeliveries: (before) => run(q.PRUNE_DELIVERIES, [before.getTime()]),
  };
}

/** Another node turned one of the events into deliveries first: this transaction keeps nothing. */
class EventTaken extends Error {}
