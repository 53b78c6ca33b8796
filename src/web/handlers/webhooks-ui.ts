import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { LINK_EVENTS, type Delivery, type Webhook } from '../../webhooks/webhook.ts';
import { formFailure, textOf } from '../forms.ts';
import { formatTime } from '../presenters.ts';
import { actorOf, readCookie, readForm, writeCookie } from '../session.ts';
import { showPage } from './pages.ts';

/** Deliveries each hook's log shows, newest first. */
const LOG_LENGTH = 10;

/** How long the page after an addition may take to show the new hook's secret. */
const NEW_HOOK_SHOWN_FOR = 60_000;

/** What each event's checkbox says. */
const EVENT_DOCS: Record<(typeof LINK_EVENTS)[number], string> = {
  'link.created': 'a link of yours is created',
  'link.updated': 'it is edited',
  'link.deleted': 'it is deleted',
  'link.clicked': 'it is visited: one POST a second at most, listing the clicks',
};

/** The checkbox of each event in the form. */
const eventField = (event: string) => `event:${event}`;

/** What the add form was sent with (or starts with). */
interface HookForm {
  url: string;
  events: readonly string[];
}
const NEW_HOOK: HookForm = { url: '', events: ['link.created', 'link.updated', 'link.deleted'] };

/** The hook a creation's cookie holds (base64url JSON, signed by kurz); null for anything else. */
function createdHook(value: string): { id: number; secret: string } | null {
  try {
    const { id, secret } = JSON.parse(Buffer.from(value, 'base64url').toString()) as { id?: unknown; secret?: unknown };
    return typeof id === 'number' && typeof secret === 'string' ? { id, secret } : null;
  } catch {
    return null;
  }
}

/** A delivery as the log shows it. */
function deliveryRow(delivery: Delivery) {
  const state = delivery.deliveredAt
    ? { label: 'delivered', classes: 'state-active' }
    : delivery.nextAt
      ? { label: delivery.attempts === 0 ? 'waiting' : 'retrying', classes: 'state-review' }
      : { label: 'given up', classes: 'state-off' };
  return {
    id: delivery.id,
    event: delivery.event,
    created: formatTime(delivery.createdAt),
    state,
    status: delivery.lastStatus,
    error: delivery.lastError,
    attempts: delivery.attempts,
    next: delivery.nextAt && !delivery.deliveredAt ? formatTime(delivery.nextAt) : null,
  };
}

/** A hook as the page shows it (never its secret), with its log. */
function hookRow(hook: Webhook, log: Delivery[]) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events.join(', '),
    created: formatTime(hook.createdAt),
    enabled: hook.enabled,
    deliveries: log.map(deliveryRow),
  };
}

/** A form's error as the page says it: the field it names, and a sentence. */
function hookError(err: AppError): { field: string | undefined; message: string } {
  const message = err.message.replace(/^url\b/, 'The URL').replace(/^events\b/, 'Events');
  return { field: err.field, message: message.endsWith('.') ? message : `${message}.` };
}

/** /webhooks: a person's webhooks, each with its delivery log and a test button; a new one's secret is shown once. */
export function webhooksUiHandlers(web: WebServices) {
  async function showHooks(
    ctx: Context,
    status: number,
    form: HookForm,
    error: { field: string | undefined; message: string } | null,
    created: { id: number; secret: string } | null,
  ) {
    const actor = actorOf(ctx);
    const hooks = await web.webhooks.list(actor);
    const rows = await Promise.all(hooks.map(async (hook) => hookRow(hook, await web.webhooks.deliveries(actor, hook.id, LOG_LENGTH))));
    const notice = (name: string) => (typeof ctx.query[name] === 'string' ? ctx.query[name] : null);
    showPage(ctx, web, status, 'webhooks', {
      title: 'Webhooks',
      section: 'webhooks',
      hooks: rows,
      url: form.url,
      events: LINK_EVENTS.map((event) => ({
        event,
        field: eventField(event),
        doc: EVENT_DOCS[event],
        checked: form.events.includes(event),
      })),
      error,
      created: created && rows.some((h) => h.id === created.id) ? created : null,
      pinged: notice('pinged'),
      deleted: notice('deleted'),
      allowPrivate: web.config.webhookAllowPrivate,
    });
  }

  /** The hook `:id` of the person, or not found. */
  async function ownHook(ctx: Context): Promise<Webhook> {
    const id = Number(ctx.params['id']);
    const hook = (await web.webhooks.list(actorOf(ctx))).find((h) => h.id === id);
    if (!hook) throw new AppError('not_found', `you have no webhook ${ctx.params['id']}`);
    return hook;
  }

  return {
    /** The hooks; one just added (the addition's cookie) shows its secret this once, then the cookie is gone. */
    async listWebhooks(ctx: Context): Promise<void> {
      const made = readCookie(ctx, web, 'newWebhook');
      if (made !== undefined) writeCookie(ctx, web, 'newWebhook', null);
      await showHooks(ctx, 200, NEW_HOOK, null, made === undefined ? null : createdHook(made));
    },

    /** Adds a hook for the ticked events. */
    async addWebhook(ctx: Context): Promise<void> {
      const body = await readForm(ctx, web);
      const form: HookForm = { url: textOf(body, 'url'), events: LINK_EVENTS.filter((event) => body[eventField(event)] === 'true') };
      try {
        const { hook, secret } = await web.webhooks.add(actorOf(ctx), form.url, form.events);
        // Shown by the page this leads to, so that a reload there sends no form again (and adds no second hook).
        writeCookie(
          ctx,
          web,
          'newWebhook',
          Buffer.from(JSON.stringify({ id: hook.id, secret })).toString('base64url'),
          NEW_HOOK_SHOWN_FOR,
          'strict',
        );
        sendSeeOther(ctx.res, `/webhooks#hook-${hook.id}`);
      } catch (err) {
        const error = formFailure(err);
        await showHooks(ctx, STATUS[error.code], form, hookError(error), null);
      }
    },

    /** Sends the hook a ping at the next turn; the log shows it. */
    async pingWebhook(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const hook = await ownHook(ctx);
      await web.webhooks.ping(actorOf(ctx), hook.id);
      sendSeeOther(ctx.res, `/webhooks?${new URLSearchParams({ pinged: String(hook.id) })}#hook-${hook.id}`);
    },

    /** Turns the hook on (`enabled=true`) or off. */
    async setWebhookState(ctx: Context): Promise<void> {
      const body = await readForm(ctx, web);
      const hook = await ownHook(ctx);
      await web.webhooks.setEnabled(actorOf(ctx), hook.id, body['enabled'] === 'true');
      sendSeeOther(ctx.res, `/webhooks#hook-${hook.id}`);
    },

    /** The page that asks before deleting a hook. */
    async confirmDelete(ctx: Context): Promise<void> {
      const hook = await ownHook(ctx);
      showPage(ctx, web, 200, 'webhook-delete', { title: 'Delete this webhook?', section: 'webhooks', hook: hookRow(hook, []) });
    },

    async deleteWebhook(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const hook = await ownHook(ctx);
      await web.webhooks.remove(actorOf(ctx), hook.id);
      sendSeeOther(ctx.res, `/webhooks?${new URLSearchParams({ deleted: hook.url })}`);
    },
  };
}
