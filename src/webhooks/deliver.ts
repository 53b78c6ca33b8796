import type { Config } from '../config.ts';
import { isUnavailable } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { VERSION } from '../core/version.ts';
import type { Link } from '../links/link.ts';
import type { VisitDetails } from '../visits/visit.ts';
import { linkJson, type LinkJson, type Presenter } from '../links/link-json.ts';
import type { WebhookStore } from '../store/ports.ts';
import { postJson, type Answer, type SendOptions } from './send.ts';
import { SIGNATURE_HEADER, signatureOf } from './signature.ts';
import type { DueDelivery, NewDelivery, RecordedEvent } from './webhook.ts';

/** Recorded events read per turn (a POST of this many clicks is about 1.3 MB): more wait for the next turn. */
const EVENTS_PER_TURN = 5000;

/** Deliveries attempted per turn, at the same time. */
const SENDS_PER_TURN = 16;

/** A delivery is given up once its next attempt would come later than this after it was made. */
const GIVE_UP_AFTER_MS = 86_400_000;

/** The longest wait between two attempts. */
const LONGEST_WAIT_MS = 3_600_000;

/** What a claimed delivery's lease adds to the timeout: should this process die while sending, another tries after. */
const LEASE_MARGIN_MS = 30_000;

export interface DeliveryDeps {
  store: WebhookStore;
  linkById(id: number): Promise<Link | undefined>;
  presenter: Presenter;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookInterval' | 'webhookRetryBase' | 'webhookTimeout'>;
  now(): number;
  random(size: number): Buffer;
  log: Logger;
  /** Sends one attempt (send.ts's postJson; tests may watch it). */
  send?: (url: string, headers: Record<string, string>, body: string, options: SendOptions) => Promise<Answer>;
}

/** A click as a link.clicked body lists it. */
interface ClickJson extends VisitDetails {
  at: string;
  domain: string;
  code: string;
  shortUrl: string;
}

export interface WebhookDeliveries {
  /** One turn: the recorded events become deliveries, then the deliveries due are attempted. */
  turn(): Promise<void>;
  /** Runs a turn every webhookInterval, one after the other, until `stop`. */
  start(): void;
  /** Stops the turns and waits for the one under way. */
  stop(): Promise<void>;
  /** Deletes the deliveries done (delivered or given up) more than `days` ago; returns how many. */
  prune(days: number): Promise<number>;
}

/**
 * The delivery of webhooks, run by the one process that does the periodic work (the single server, a
 * primary; every node on PostgreSQL, where the store's transactions keep two nodes from sending one event
 * twice). Each turn takes the events the database recorded (store/ports.ts's WebhookStore), makes one
 * delivery per event and hook — and one per hook for all its clicks, so a hook gets at most one link.clicked
 * POST a turn — and attempts what is due: signed, retried with exponential backoff and jitter for a day.
 */
export function webhookDeliveries(deps: DeliveryDeps): WebhookDeliveries {
  const { store, config, log } = deps;
  const send = deps.send ?? postJson;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = true;

  async function makeDeliveries(): Promise<void> {
    const events = await store.pendingEvents(EVENTS_PER_TURN);
    if (events.length === 0) return;
    const hooks = (await store.listWebhooks()).filter((h) => h.enabled);
    const links = new Map<number, Promise<LinkJson | null>>();
    const linkOf = (id: number) => {
      let found = links.get(id);
      if (!found) links.set(id, (found = deps.linkById(id).then((link) => (link ? linkJson(link, deps.presenter) : null))));
      return found;
    };
    const at = new Date(deps.now());
    const deliveries: NewDelivery[] = [];
    const clicks = new Map<number, ClickJson[]>();
    // A link edited several times in a turn (or by one edit in several statements) is shown as it is now:
    // one link.updated says it all.
    const updated = new Set<string>();
    for (const event of events) {
      for (const hook of hooks) {
        if (hook.userId !== event.ownerId || !hook.events.includes(event.event)) continue;
        const link = await linkOf(event.linkId);
        if (event.event === 'link.clicked') {
          if (!link) continue;
          const list = clicks.get(hook.id);
          if (list) list.push(clickJson(event, link));
          else clicks.set(hook.id, [clickJson(event, link)]);
          continue;
        }
        if (event.event === 'link.updated') {
          const key = `${hook.id} ${event.linkId}`;
          if (updated.has(key)) continue;
          updated.add(key);
        }
        const body = JSON.stringify({ event: event.event, at: event.at.toISOString(), link });
        deliveries.push({ hookId: hook.id, event: event.event, body, createdAt: at, nextAt: at });
      }
    }
    for (const [hookId, list] of clicks) {
      const body = JSON.stringify({ event: 'link.clicked', at: at.toISOString(), clicks: list });
      deliveries.push({ hookId, event: 'link.clicked', body, createdAt: at, nextAt: at });
    }
    const kept = await store.addDeliveries(
      events.map((e) => e.id),
      deliveries,
    );
    if (!kept) log.debug('webhook events taken by another process first', { events: events.length });
  }

  async function attempt(delivery: DueDelivery): Promise<void> {
    const due = delivery.nextAt!;
    if (!(await store.claimDelivery(delivery.id, due, new Date(deps.now() + config.webhookTimeout + LEASE_MARGIN_MS)))) return;
    const headers = {
      'content-type': 'application/json',
      'user-agent': `kurz/${VERSION} (webhooks)`,
      'kurz-event': delivery.event,
      'kurz-delivery': String(delivery.id),
      [SIGNATURE_HEADER.toLowerCase()]: signatureOf(delivery.secret, delivery.body, Math.floor(deps.now() / 1000)),
    };
    const answer = await send(delivery.url, headers, delivery.body, {
      timeout: config.webhookTimeout,
      allowPrivate: config.webhookAllowPrivate,
    });
    const at = new Date(deps.now());
    if ('status' in answer && answer.status >= 200 && answer.status < 300) {
      await store.recordAttempt(delivery.id, { at, status: answer.status, error: null, delivered: true, nextAt: null });
      return;
    }
    const attempts = delivery.attempts + 1;
    const next = at.getTime() + waitAfter(attempts);
    const gaveUp = next > delivery.createdAt.getTime() + GIVE_UP_AFTER_MS;
    const status = 'status' in answer ? answer.status : null;
    const error = 'error' in answer ? answer.error : answer.excerpt === '' ? `answered ${answer.status}` : answer.excerpt;
    await store.recordAttempt(delivery.id, { at, status, error, delivered: false, nextAt: gaveUp ? null : new Date(next) });
    if (gaveUp)
      log.warn('webhook delivery given up after a day of attempts', { delivery: delivery.id, hook: delivery.hookId, attempts, error });
  }

  /** How long after a failed attempt (the `attempts`-th) the next one comes: doubling, with jitter, at most an hour. */
  function waitAfter(attempts: number): number {
    const full = Math.min(config.webhookRetryBase * 2 ** Math.min(attempts - 1, 30), LONGEST_WAIT_MS);
    const jitter = deps.random(4).readUInt32BE(0) / 2 ** 32;
    return Math.round(full * (0.5 + 0.5 * jitter));
  }

  async function turn(): Promise<void> {
    await makeDeliveries();
    // One hook's deliveries go one after the other, oldest first, so that its receiver sees a link created
    // before it is edited; the hooks' at the same time.
    const byHook = new Map<number, DueDelivery[]>();
    for (const d of await store.dueDeliveries(new Date(deps.now()), SENDS_PER_TURN))
      byHook.set(d.hookId, [...(byHook.get(d.hookId) ?? []), d]);
    await Promise.all(
      [...byHook.values()].map(async (list) => {
        for (const d of list) await attempt(d);
      }),
    );
  }

  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = turn()
        // The store logs when the database becomes unavailable and when it is back.
        .catch((err: unknown) => {
          if (!isUnavailable(err)) log.error('could not deliver webhooks', { err });
        })
        .finally(next);
    }, config.webhookInterval);
    timer.unref();
  };

  return {
    turn,
    start() {
      if (!stopped) return;
      stopped = false;
      next();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
    prune: (days) => store.pruneDeliveries(new Date(deps.now() - days * 86_400_000)),
  };
}

function clickJson(event: RecordedEvent, link: LinkJson): ClickJson {
  const click = event.click;
  return {
    at: event.at.toISOString(),
    domain: link.domain,
    code: link.code,
    shortUrl: link.shortUrl,
    bot: click?.bot ?? null,
    referrer: click?.referrer ?? null,
    browser: click?.browser ?? null,
    os: click?.os ?? null,
    device: click?.device ?? null,
    country: click?.country ?? null,
    language: click?.language ?? null,
  };
}
