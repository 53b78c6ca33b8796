import type { Database } from 'better-sqlite3';
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
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** The webhooks, their events and deliveries on one connection; writes report to `health`. */
export function createSqliteWebhookStore(db: Database, health: WriteHealth): WebhookStore {
  const listWebhooks = db.prepare<[{ userId: number | null }], WebhookRow>(q.LIST_WEBHOOKS);
  const webhookById = db.prepare<[number], WebhookRow>(q.WEBHOOK_BY_ID);
  const insertWebhook = db.prepare(q.INSERT_WEBHOOK);
  const deleteWebhook = db.prepare<[number, number]>(q.DELETE_WEBHOOK);
  const setEnabled = db.prepare<[number, number, number]>(q.SET_WEBHOOK_ENABLED);
  const pendingEvents = db.prepare<[number], EventRow>(q.PENDING_WEBHOOK_EVENTS);
  const deleteEvent = db.prepare<[number]>(q.DELETE_WEBHOOK_EVENT);
  const insertDelivery = db.prepare(q.INSERT_DELIVERY);
  const dueDeliveries = db.prepare<[number, number], DeliveryRow & { url: string; secret: string }>(q.DUE_DELIVERIES);
  const claimDelivery = db.prepare(q.CLAIM_DELIVERY);
  const recordAttempt = db.prepare(q.RECORD_ATTEMPT);
  const deliveriesOf = db.prepare<[number, number], DeliveryRow>(q.DELIVERIES_OF);
  const pruneDeliveries = db.prepare<[number]>(q.PRUNE_DELIVERIES);
  const write = <T>(work: () => T) => outsideTransaction(db, health, work);

  return {
    listWebhooks: async (userId) => listWebhooks.all({ userId: userId ?? null }).map(toWebhook),
    webhookById: async (id) => {
      const row = webhookById.get(id);
      return row && toWebhook(row);
    },
    insertWebhook: (hook) =>
      write(() => {
        const { lastInsertRowid } = insertWebhook.run({
          userId: hook.userId,
          url: hook.url,
          events: hook.events.join(' '),
          secret: hook.secret,
          enabled: hook.enabled ? 1 : 0,
          createdAt: hook.createdAt.getTime(),
        });
        return toWebhook(webhookById.get(Number(lastInsertRowid))!);
      }),
    setWebhookEnabled: (id, userId, enabled) => write(() => setEnabled.run(enabled ? 1 : 0, id, userId).changes === 1),
    deleteWebhook: (id, userId) => write(() => deleteWebhook.run(id, userId).changes === 1),
    pendingEvents: async (limit) =>
      pendingEvents
        .all(limit)
        .map(toRecordedEvent)
        .filter((e): e is RecordedEvent => e !== undefined),
    addDeliveries: (eventIds, deliveries) =>
      write(() =>
        db
          .transaction(() => {
            for (const id of eventIds) if (deleteEvent.run(id).changes !== 1) throw new EventTaken();
            for (const d of deliveries) {
              insertDelivery.run({
                hookId: d.hookId,
                event: d.event,
                body: d.body,
                createdAt: d.createdAt.getTime(),
                nextAt: d.nextAt.getTime(),
              });
            }
            return true;
          })
          .immediate(),
      ).catch((err: unknown) => {
        if (err instanceof EventTaken) return false;
        throw err;
      }),
    dueDeliveries: async (now, limit) => dueDeliveries.all(now.getTime(), limit).map(toDueDelivery),
    claimDelivery: (id, due, until) => write(() => claimDelivery.run({ id, due: due.getTime(), until: until.getTime() }).changes === 1),
    recordAttempt: (id, outcome) =>
      write(
        () =>
          void recordAttempt.run({
            id,
            at: outcome.at.getTime(),
            status: outcome.status,
            error: outcome.error,
            delivered: outcome.delivered ? 1 : 0,
            nextAt: outcome.nextAt?.getTime() ?? null,
          }),
      ),
    deliveriesOf: async (hookId, limit) => deliveriesOf.all(hookId, limit).map(toDelivery),
    pruneDeliveries: (before) => write(() => pruneDeliveries.run(before.getTime()).changes),
  };
}

/** Another process turned one of the events into deliveries first: this transaction keeps nothing. */
class EventTaken extends Error {}
