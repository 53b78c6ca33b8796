import type { Context } from 'koa';
import * as z from 'zod';
import type { WebServices } from '../../context.ts';
import { parseBody, ruled } from '../../core/request-schema.ts';
import { readBody } from '../../http/body.ts';
import { sendJson, sendNoContent } from '../../http/respond.ts';
import { LINK_EVENTS, type Delivery, type Webhook } from '../../webhooks/webhook.ts';
import { actorOf } from '../session.ts';

const WEBHOOKS_PATH = '/api/v1/webhooks';

/** Deliveries the API lists at most. */
const DELIVERIES_LISTED = 100;

/** Passes a value on as it came: the use case (webhooks/manage.ts) checks it. */
const asGiven = (value: unknown): unknown => value;

const DATE_TIME = z.string().meta({ format: 'date-time' });

/** POST /api/v1/webhooks: a new hook for the caller's links. */
export const WEBHOOK_CREATE = z.strictObject({
  url: ruled(
    z.string().meta({
      format: 'uri',
      description:
        "Where the events are POSTed: http(s), a link target's rules, and no loopback, private or link-local address unless webhookAllowPrivate",
    }),
    asGiven,
  ).nonoptional({ error: 'url is required' }),
  events: ruled(z.array(z.enum(LINK_EVENTS)).min(1).describe('The events the hook hears of, one or more'), asGiven).nonoptional({
    error: 'events is required',
  }),
});

/** PATCH /api/v1/webhooks/ID: turns a hook on or off. */
export const WEBHOOK_EDIT = z.strictObject({
  enabled: z
    .boolean({ error: 'enabled must be true or false' })
    .describe('false: the hook records no events (what happens meanwhile is never sent) and its due deliveries wait'),
});

/** A hook as the API shows it: never its secret, but when it is made. */
export const WEBHOOK_JSON = z.strictObject({
  id: z.int(),
  url: z.string(),
  events: z.array(z.enum(LINK_EVENTS)),
  enabled: z.boolean(),
  createdAt: DATE_TIME,
  secret: z.string().optional().describe('The HMAC key of the Kurz-Signature header: in the answer that makes the hook, and never again'),
});

/** One delivery of a hook, as its log shows it. */
export const DELIVERY_JSON = z.strictObject({
  id: z.int().describe('The Kurz-Delivery header of its every attempt'),
  event: z.enum([...LINK_EVENTS, 'ping']),
  createdAt: DATE_TIME,
  attempts: z.int().min(0),
  lastStatus: z.int().nullable().describe("The last attempt's HTTP status; null when none answered"),
  lastError: z.string().nullable().describe("Why the last attempt failed: the error, or the start of the answer's body"),
  deliveredAt: DATE_TIME.nullable(),
  nextAttemptAt: DATE_TIME.nullable().describe('null once delivered or given up (a day after it was made)'),
});

function webhookJson(hook: Webhook): z.output<typeof WEBHOOK_JSON> {
  return { id: hook.id, url: hook.url, events: [...hook.events], enabled: hook.enabled, createdAt: hook.createdAt.toISOString() };
}

function deliveryJson(delivery: Delivery): z.output<typeof DELIVERY_JSON> {
  return {
    id: delivery.id,
    event: delivery.event,
    createdAt: delivery.createdAt.toISOString(),
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: delivery.deliveredAt ? null : (delivery.nextAt?.toISOString() ?? null),
  };
}

/** /api/v1/webhooks: the caller's own webhooks (an admin's too: nobody sees another's). */
export function webhooksApiHandlers(web: WebServices) {
  const idOf = (ctx: Context): number => (/^\d{1,15}$/.test(ctx.params['id'] ?? '') ? Number(ctx.params['id']) : Number.NaN);

  return {
    async listWebhooks(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, { webhooks: (await web.webhooks.list(actorOf(ctx))).map(webhookJson) });
    },

    /** 201 with the hook and, this once, its secret. */
    async addWebhook(ctx: Context): Promise<void> {
      const { url, events } = parseBody(WEBHOOK_CREATE, await readBody(ctx.req, ['json']));
      const { hook, secret } = await web.webhooks.add(actorOf(ctx), url, events);
      ctx.res.setHeader('Location', `${WEBHOOKS_PATH}/${hook.id}`);
      sendJson(ctx.res, 201, { ...webhookJson(hook), secret });
    },

    async editWebhook(ctx: Context): Promise<void> {
      const { enabled } = parseBody(WEBHOOK_EDIT, await readBody(ctx.req, ['json']));
      sendJson(ctx.res, 200, webhookJson(await web.webhooks.setEnabled(actorOf(ctx), idOf(ctx), enabled)));
    },

    async deleteWebhook(ctx: Context): Promise<void> {
      await web.webhooks.remove(actorOf(ctx), idOf(ctx));
      sendNoContent(ctx.res);
    },

    /** 202: the ping goes out at the next turn, as any delivery. */
    async pingWebhook(ctx: Context): Promise<void> {
      await web.webhooks.ping(actorOf(ctx), idOf(ctx));
      sendJson(ctx.res, 202, { queued: true });
    },

    async listDeliveries(ctx: Context): Promise<void> {
      const deliveries = await web.webhooks.deliveries(actorOf(ctx), idOf(ctx), DELIVERIES_LISTED);
      sendJson(ctx.res, 200, { deliveries: deliveries.map(deliveryJson) });
    },
  };
}
