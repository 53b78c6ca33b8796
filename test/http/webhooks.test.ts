import test from 'ava';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';
import { BROWSER_UA, listen, startKurz, waitFor } from '../helpers.ts';
import { verifySignature, webhookReceiver } from '../support/webhook-receiver.ts';
import { member } from './members.ts';
import type { Webhook } from '../../src/webhooks/webhook.ts';

/** Settings that let the hooks reach the test's receiver on 127.0.0.1, and turn fast. */
const REACH_RECEIVER = { webhookAllowPrivate: true, webhookInterval: '50ms' };

test('a link created, edited and deleted reaches the hook as three signed POSTs, in order', async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const receiver = await webhookReceiver(t);
  const { secret } = await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.created', 'link.updated', 'link.deleted']);

  const created = await kurz.postJson('/api/v1/links', { url: 'https://example.com/hooked', alias: 'hooked', title: 'Hooked' });
  t.is(created.status, 201);
  t.is((await kurz.request('PATCH', '/api/v1/links/hooked', { url: 'https://example.com/edited' })).status, 200);
  t.is((await kurz.request('DELETE', '/api/v1/links/hooked')).status, 204);
  await waitFor(() => receiver.received.length >= 3);

  t.deepEqual(
    receiver.received.map((r) => [r.event, r.json.event]),
    [
      ['link.created', 'link.created'],
      ['link.updated', 'link.updated'],
      ['link.deleted', 'link.deleted'],
    ],
  );
  const [first, second, third] = receiver.received.map(
    (r) => r.json as unknown as { link: { code: string; url: string; deletedAt: string | null } },
  );
  t.is(first!.link.code, 'hooked');
  t.is(second!.link.code, 'hooked');
  t.not(third!.link.deletedAt, null);
  for (const r of receiver.received) {
    const { valid, t: signedAt } = verifySignature(secret, r.signature, r.body);
    t.true(valid, r.signature);
    t.is(signedAt, Math.floor(kurz.clock.now() / 1000));
    t.false(verifySignature('whsec_wrong', r.signature, r.body).valid);
    t.regex(r.delivery, /^\d+$/);
  }
  t.is(new Set(receiver.received.map((r) => r.delivery)).size, 3);
});

test('a hook hears only the events it asked for', async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const receiver = await webhookReceiver(t);
  await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.deleted']);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/a', alias: 'only-a' })).status, 201);
  t.is((await kurz.request('DELETE', '/api/v1/links/only-a')).status, 204);
  await waitFor(() => receiver.received.length >= 1);
  await kurz.kurz.services.deliveries.turn();
  t.deepEqual(
    receiver.received.map((r) => r.event),
    ['link.deleted'],
  );
});

test('many clicks in one second reach the hook as one POST listing each of them', async (t) => {
  // The visits are written when the test flushes them, in one transaction, whatever the machine's load.
  const kurz = await startKurz(t, { webhookAllowPrivate: true, visitFlushInterval: '60s' });
  const receiver = await webhookReceiver(t);
  await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.clicked']);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/clicked', alias: 'clicked' })).status, 201);
  for (let i = 0; i < 25; i++) {
    const visit = await fetch(`${kurz.base}/clicked`, {
      redirect: 'manual',
      headers: { 'user-agent': BROWSER_UA, referer: 'https://news.example/' },
    });
    t.is(visit.status, 302);
  }
  await kurz.flushVisits();
  await waitFor(() => receiver.received.length >= 1);
  // Another turn finds nothing more to send.
  await kurz.kurz.services.deliveries.turn();
  t.is(receiver.received.length, 1);
  const body = receiver.received[0]!.json as unknown as {
    event: string;
    clicks: Array<{ code: string; referrer: string | null; bot: string | null; shortUrl: string }>;
  };
  t.is(body.event, 'link.clicked');
  t.is(body.clicks.length, 25);
  t.true(body.clicks.every((c) => c.code === 'clicked' && c.bot === null && c.shortUrl === 'https://kurz.test/clicked'));
  t.is(body.clicks[0]!.referrer, 'news.example');
});

test('a delivery answered 500 is tried again after the backoff, and not before', async (t) => {
  const kurz = await startKurz(t, { ...REACH_RECEIVER, webhookRetryBase: '10s' });
  const receiver = await webhookReceiver(t, [500, 200]);
  const { hook } = await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.created']);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/retry', alias: 'retry' })).status, 201);
  await waitFor(() => receiver.received.length >= 1);
  await waitFor(async () => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10))[0]?.attempts === 1);
  const [waiting] = await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10);
  t.is(waiting!.lastStatus, 500);
  t.is(waiting!.lastError, 'receiver says no');
  t.is(waiting!.deliveredAt, null);
  const wait = waiting!.nextAt!.getTime() - kurz.clock.now();
  t.true(wait >= 5000 && wait <= 10_000, `next attempt in ${wait} ms`);
  // Turns before the time has come send nothing.
  await kurz.kurz.services.deliveries.turn();
  t.is(receiver.received.length, 1);

  kurz.clock.advance(10_000);
  await waitFor(() => receiver.received.length >= 2);
  await waitFor(async () => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10))[0]?.deliveredAt !== null);
  const [delivered] = await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10);
  t.is(delivered!.attempts, 2);
  t.is(delivered!.lastStatus, 200);
  t.is(delivered!.nextAt, null);
  t.is(receiver.received[0]!.delivery, receiver.received[1]!.delivery);
  t.is(receiver.received[0]!.body, receiver.received[1]!.body);
  // Delivered, its body is of no more use.
  t.deepEqual(await kurz.sql('SELECT body FROM webhook_deliveries'), [{ body: '' }]);
});

test('without webhookAllowPrivate a hook on a private address is refused, and a name resolving to one is refused at delivery', async (t) => {
  const kurz = await startKurz(t, { webhookInterval: '50ms' });
  const receiver = await webhookReceiver(t);
  for (const url of [
    receiver.url,
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest',
    'http://[::ffff:127.0.0.1]:9/',
    'http://localhost:9/',
  ]) {
    const error = await t.throwsAsync(kurz.kurz.services.webhooks.add(SERVER_ADMIN, url, ['link.created']));
    t.regex(error.message, /loopback|private|link-local|leads back/, url);
  }
  // A hook stored while its name pointed elsewhere (or written by another setting): the address is checked as it connects.
  const port = new URL(receiver.url).port;
  const hook = await kurz.kurz.storage.webhooks.insertWebhook({
    userId: 1,
    url: `http://localhost:${port}/hook`,
    events: ['link.created'],
    secret: 'whsec_test',
    enabled: true,
    createdAt: new Date(kurz.clock.now()),
  });
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/refused', alias: 'refused' })).status, 201);
  await waitFor(async () => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10))[0]?.attempts === 1);
  const [refused] = await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 10);
  t.regex(refused!.lastError ?? '', /refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
  t.is(refused!.lastStatus, null);
  t.is(receiver.received.length, 0);
});

test('the API adds a hook (its secret in that answer alone), lists it, pings it, shows its log and deletes it', async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const receiver = await webhookReceiver(t);
  const added = await kurz.postJson('/api/v1/webhooks', { url: receiver.url, events: ['link.clicked', 'link.created'] });
  t.is(added.status, 201);
  const hook = (await added.json()) as { id: number; url: string; events: string[]; secret: string };
  t.is(added.headers.get('location'), `/api/v1/webhooks/${hook.id}`);
  t.deepEqual(hook.events, ['link.created', 'link.clicked']);
  t.is(hook.url, receiver.url);
  t.regex(hook.secret, /^whsec_[\w-]{32}$/);

  const listed = (await (await kurz.get('/api/v1/webhooks')).json()) as { webhooks: Array<Record<string, unknown>> };
  t.is(listed.webhooks.length, 1);
  t.false('secret' in listed.webhooks[0]!);

  t.is((await kurz.request('POST', `/api/v1/webhooks/${hook.id}/ping`)).status, 202);
  await waitFor(() => receiver.received.length >= 1);
  const ping = receiver.received[0]!;
  t.is(ping.event, 'ping');
  t.true(verifySignature(hook.secret, ping.signature, ping.body).valid);
  t.deepEqual((ping.json as unknown as { hook: unknown }).hook, {
    id: hook.id,
    url: receiver.url,
    events: ['link.created', 'link.clicked'],
  });
  await waitFor(async () => {
    const log = (await (await kurz.get(`/api/v1/webhooks/${hook.id}/deliveries`)).json()) as {
      deliveries: Array<{ deliveredAt: string | null }>;
    };
    return log.deliveries[0]?.deliveredAt != null;
  });
  const log = (await (await kurz.get(`/api/v1/webhooks/${hook.id}/deliveries`)).json()) as { deliveries: Array<Record<string, unknown>> };
  t.like(log.deliveries[0], {
    id: Number(ping.delivery),
    event: 'ping',
    attempts: 1,
    lastStatus: 204,
    lastError: null,
    nextAttemptAt: null,
  });

  t.is((await kurz.request('DELETE', `/api/v1/webhooks/${hook.id}`)).status, 204);
  t.is((await kurz.request('DELETE', `/api/v1/webhooks/${hook.id}`)).status, 404);
  t.is((await kurz.get(`/api/v1/webhooks/${hook.id}/deliveries`)).status, 404);
  t.deepEqual(await (await kurz.get('/api/v1/webhooks')).json(), { webhooks: [] });
  const trail = (await (await kurz.get('/api/v1/audit?action=webhook')).json()) as {
    entries: Array<{ action: string; subject: { kind: string; label: string }; details: Record<string, unknown> }>;
  };
  t.deepEqual(
    trail.entries.map((e) => [e.action, e.subject.kind, e.subject.label, e.details]),
    [
      ['webhook.delete', 'webhook', receiver.url, {}],
      ['webhook.create', 'webhook', receiver.url, { events: 'link.created link.clicked' }],
    ],
  );
  t.false(JSON.stringify(trail).includes(hook.secret));
});

test('bad hooks are refused with 400 naming the field, and unknown ids are 404', async (t) => {
  const kurz = await startKurz(t);
  const cases: Array<[unknown, RegExp]> = [
    [{ events: ['link.created'] }, /url is required/],
    [{ url: 'https://example.com/h' }, /events is required/],
    [{ url: 'https://example.com/h', events: [] }, /at least one event/],
    [
      { url: 'https://example.com/h', events: ['link.exploded'] },
      /events may only name link\.created, link\.updated, link\.deleted, link\.clicked/,
    ],
    [{ url: 'https://example.com/h', events: 'link.created' }, /events must be a list of/],
    [{ url: 'ftp://example.com/h', events: ['link.created'] }, /url must use http or https/],
    [{ url: 'https://user:pw@example.com/h', events: ['link.created'] }, /user name or password/],
    [{ url: 'https://kurz.test/h', events: ['link.created'] }, /leads back to this kurz instance/],
    [{ url: 'http://192.168.1.10/h', events: ['link.created'] }, /private address/],
    [{ url: 'http://[fd00::1]/h', events: ['link.created'] }, /unique-local address/],
    [{ url: 'http://100.64.0.1/h', events: ['link.created'] }, /CGNAT/],
    [{ url: 'https://example.com/h', events: ['link.created'], secret: 'mine' }, /unknown field "secret"/],
  ];
  for (const [body, message] of cases) {
    const answer = await kurz.postJson('/api/v1/webhooks', body);
    t.is(answer.status, 400, JSON.stringify(body));
    t.regex(((await answer.json()) as { detail: string }).detail, message, JSON.stringify(body));
  }
  t.is((await kurz.request('POST', '/api/v1/webhooks/abc/ping')).status, 404);
  t.is((await kurz.request('POST', '/api/v1/webhooks/99999999999999999999/ping')).status, 404);
  t.is((await kurz.request('DELETE', '/api/v1/webhooks/1')).status, 404);
  t.deepEqual(await (await kurz.get('/api/v1/webhooks')).json(), { webhooks: [] });
});

test("a member's hook hears of their own links only, and nobody sees or deletes another's hook", async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const alice = await member(kurz, 'alice');
  const admins = await webhookReceiver(t);
  const alices = await webhookReceiver(t);
  const adminHook = (await (await kurz.postJson('/api/v1/webhooks', { url: admins.url, events: ['link.created'] })).json()) as {
    id: number;
  };
  const made = await alice.api('POST', '/api/v1/webhooks', { url: alices.url, events: ['link.created'] });
  t.is(made.status, 201);
  const aliceHook = (await made.json()) as { id: number };

  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/admins', alias: 'admins' })).status, 201);
  t.is((await alice.api('POST', '/api/v1/links', { url: 'https://example.com/alices', alias: 'alices' })).status, 201);
  await waitFor(() => admins.received.length >= 1 && alices.received.length >= 1);
  await kurz.kurz.services.deliveries.turn();
  t.deepEqual(
    admins.received.map((r) => (r.json as unknown as { link: { code: string } }).link.code),
    ['admins'],
  );
  t.deepEqual(
    alices.received.map((r) => (r.json as unknown as { link: { code: string } }).link.code),
    ['alices'],
  );

  t.deepEqual(
    ((await (await alice.api('GET', '/api/v1/webhooks')).json()) as { webhooks: Array<{ id: number }> }).webhooks.map((h) => h.id),
    [aliceHook.id],
  );
  t.deepEqual(
    ((await (await kurz.get('/api/v1/webhooks')).json()) as { webhooks: Array<{ id: number }> }).webhooks.map((h) => h.id),
    [adminHook.id],
  );
  t.is((await alice.api('DELETE', `/api/v1/webhooks/${adminHook.id}`)).status, 404);
  t.is((await alice.api('GET', `/api/v1/webhooks/${adminHook.id}/deliveries`)).status, 404);
  t.is((await kurz.request('POST', `/api/v1/webhooks/${aliceHook.id}/ping`)).status, 404);
  t.is((await alice.page(`/webhooks/${adminHook.id}/delete`)).status, 404);
});

test('a receiver that answers too late, redirects or talks too much fails the attempt, and kurz keeps only the start of what it said', async (t) => {
  // Long enough that a receiver answering at once is never late on a loaded machine (CI): the silent one waits it out.
  const kurz = await startKurz(t, { ...REACH_RECEIVER, webhookTimeout: '2s' });
  let redirectedTo = 0;
  const silent = await listen(t, () => {
    // Never answers: the attempt must end at webhookTimeout.
  });
  const redirecting = await listen(t, (req, res) => {
    if (req.url === '/moved') redirectedTo++;
    res.writeHead(307, { location: '/moved' }).end();
  });
  const talkative = await listen(t, (_req, res) => {
    res.writeHead(500).end('x'.repeat(100_000));
  });
  const hooks: Webhook[] = [];
  for (const base of [silent, redirecting, talkative])
    hooks.push((await kurz.kurz.services.webhooks.add(SERVER_ADMIN, `${base}/hook`, ['link.created'])).hook);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/fails', alias: 'fails' })).status, 201);
  const first = async (id: number) => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, id, 1))[0];
  await waitFor(async () => (await Promise.all(hooks.map((h) => first(h.id)))).every((d) => d?.attempts === 1));
  const [late, moved, long] = await Promise.all(hooks.map((h) => first(h.id)));
  t.like(late, { lastStatus: null, lastError: 'no answer within 2000 ms', deliveredAt: null });
  t.like(moved, { lastStatus: 307, lastError: 'answered 307', deliveredAt: null });
  t.is(redirectedTo, 0);
  t.is(long!.lastStatus, 500);
  t.is(long!.lastError, 'x'.repeat(200));
});

test('a delivery that keeps failing is given up once a day has passed since its event, and logged', async (t) => {
  const kurz = await startKurz(t, { ...REACH_RECEIVER, webhookRetryBase: '1h' });
  const receiver = await webhookReceiver(t, [503]);
  const { hook } = await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.created']);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/gone-away', alias: 'gone-away' })).status, 201);
  const latest = async () => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 1))[0]!;
  await waitFor(async () => (await kurz.kurz.services.webhooks.deliveries(SERVER_ADMIN, hook.id, 1)).length === 1);
  const madeAt = (await latest()).createdAt.getTime();
  for (let attempts = 1; ; attempts++) {
    await waitFor(async () => (await latest()).attempts === attempts);
    const delivery = await latest();
    if (delivery.nextAt === null) break;
    const wait = delivery.nextAt.getTime() - kurz.clock.now();
    // Doubling from an hour is an hour at most: half to all of it, with jitter.
    t.true(wait >= 1_800_000 && wait <= 3_600_000, `wait ${wait} ms`);
    kurz.clock.advance(wait);
  }
  const given = await latest();
  t.is(given.deliveredAt, null);
  t.is(given.lastStatus, 503);
  t.true(kurz.clock.now() - madeAt < 86_400_000 + 3_600_000);
  t.true(kurz.clock.now() - madeAt > 86_400_000 - 3_600_000);
  t.is(receiver.received.length, given.attempts);
  t.true(kurz.log.records.some((e) => e.message === 'webhook delivery given up after a day of attempts'));
});

test('a paused hook records no events and sends nothing; resumed, it hears of what happens from then on', async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const receiver = await webhookReceiver(t);
  const hook = (await (await kurz.postJson('/api/v1/webhooks', { url: receiver.url, events: ['link.created'] })).json()) as { id: number };
  const paused = await kurz.request('PATCH', `/api/v1/webhooks/${hook.id}`, { enabled: false });
  t.is(paused.status, 200);
  t.like(await paused.json(), { id: hook.id, enabled: false });
  t.is((await kurz.request('PATCH', `/api/v1/webhooks/${hook.id}`, { enabled: 'no' })).status, 400);
  t.is((await kurz.request('PATCH', '/api/v1/webhooks/424242', { enabled: true })).status, 404);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/unheard', alias: 'unheard' })).status, 201);
  // The ping is queued while paused, and waits.
  t.is((await kurz.request('POST', `/api/v1/webhooks/${hook.id}/ping`)).status, 202);
  await kurz.kurz.services.deliveries.turn();
  t.deepEqual(await kurz.sql('SELECT count(*) AS n FROM webhook_events'), [{ n: 0 }]);
  t.is(receiver.received.length, 0);

  t.is((await kurz.request('PATCH', `/api/v1/webhooks/${hook.id}`, { enabled: true })).status, 200);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/heard', alias: 'heard' })).status, 201);
  await waitFor(() => receiver.received.length >= 2);
  await kurz.kurz.services.deliveries.turn();
  t.deepEqual(
    receiver.received.map((r) => [r.event, (r.json as unknown as { link?: { code: string } }).link?.code ?? null]),
    [
      ['ping', null],
      ['link.created', 'heard'],
    ],
  );
});

test('link.updated comes from every kind of edit of a link: its fields, its tags, its rules, its split', async (t) => {
  const kurz = await startKurz(t, REACH_RECEIVER);
  const receiver = await webhookReceiver(t);
  await kurz.kurz.services.webhooks.add(SERVER_ADMIN, receiver.url, ['link.updated']);
  t.is((await kurz.postJson('/api/v1/links', { url: 'https://example.com/edited', alias: 'edits' })).status, 201);
  const edits: Array<[string, string, unknown]> = [
    ['PATCH', '/api/v1/links/edits', { tags: ['one'] }],
    ['PATCH', '/api/v1/links/edits', { title: 'A title' }],
    [
      'PUT',
      '/api/v1/links/edits/rules',
      { rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' }] },
    ],
    [
      'PATCH',
      '/api/v1/links/edits',
      {
        split: [
          { url: 'https://example.com/a', weight: 1 },
          { url: 'https://example.com/b', weight: 1 },
        ],
      },
    ],
  ];
  // Each edit waits for its event: edits within one turn would be one link.updated.
  for (const [i, [method, path, body]] of edits.entries()) {
    // An edit sets the link's updatedAt: a tags-only edit is an event by it, as time goes on between edits.
    kurz.clock.advance(1000);
    const answer = await kurz.request(method, path, body);
    t.true(answer.status < 300, `${method} ${path}: ${answer.status} ${await answer.text()}`);
    await waitFor(() => receiver.received.length >= i + 1);
  }
  // The edits that write the link in several statements were one event each all the same.
  await kurz.kurz.services.deliveries.turn();
  const links = receiver.received.map((r) => (r.json as unknown as { link: { tags: string[]; title: string | null } }).link);
  t.is(links.length, edits.length);
  t.deepEqual(links[0]!.tags, ['one']);
  t.is(links.at(-1)!.title, 'A title');
});
