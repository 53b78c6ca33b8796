import test from 'ava';
import { backend, BROWSER_UA, freshDatabase, runCli, startServe, waitFor, type ServeProcess } from '../helpers.ts';
import { createThrough, freshRequest } from '../support/fresh-connection.ts';
import { verifySignature, webhookReceiver } from '../support/webhook-receiver.ts';

const LINKS = 40;
const CLICKS = 30;

test('with --workers 2, each event reaches the hook exactly once, whichever worker served the change', async (t) => {
  const receiver = await webhookReceiver(t);
  const env = {
    ...(await freshDatabase(t)).env,
    KURZ_WORKERS: '2',
    KURZ_WEBHOOK_ALLOW_PRIVATE: 'on',
    KURZ_WEBHOOK_INTERVAL: '100ms',
    // The receiver is on 127.0.0.1 too: kurz's own address must be another.
    KURZ_PUBLIC_URL: 'https://kurz.test',
  };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const kurz = await startServe(t, env);

  const added = await freshRequest(`${kurz.url}/api/v1/webhooks`, {
    method: 'POST',
    body: { url: receiver.url, events: ['link.created', 'link.deleted', 'link.clicked'] },
    key,
  });
  t.is(added.status, 201, added.body);
  const hook = JSON.parse(added.body) as { id: number; secret: string };

  // New connections, so that node:cluster hands them to both workers; one link made by the CLI too.
  const codes = await Promise.all(Array.from({ length: LINKS }, (_, i) => createThrough(kurz.url, key, `https://example.com/w/${i}`)));
  const cli = await runCli(['create', 'https://example.com/from-cli', '--alias', 'from-cli'], env);
  t.is(cli.code, 0, cli.stderr);
  t.is((await freshRequest(`${kurz.url}/api/v1/links/${codes[0]}`, { method: 'DELETE', key })).status, 204);
  for (let i = 0; i < CLICKS; i++) {
    const visit = await fetch(`${kurz.url}/${codes[1]}`, {
      redirect: 'manual',
      headers: { 'user-agent': BROWSER_UA, connection: 'close' },
    });
    t.is(visit.status, 302);
  }

  const created = () => receiver.received.filter((r) => r.event === 'link.created');
  const clicks = () =>
    receiver.received.filter((r) => r.event === 'link.clicked').flatMap((r) => (r.json as unknown as { clicks: unknown[] }).clicks);
  await waitFor(
    () => created().length >= LINKS + 1 && receiver.received.some((r) => r.event === 'link.deleted') && clicks().length >= CLICKS,
    20_000,
  );
  // Every delivery the log holds is delivered, and the receiver got each of them once.
  let log: Array<{ id: number; deliveredAt: string | null }> = [];
  await waitFor(async () => {
    const answer = await freshRequest(`${kurz.url}/api/v1/webhooks/${hook.id}/deliveries`, { key });
    log = (JSON.parse(answer.body) as { deliveries: typeof log }).deliveries;
    return log.every((d) => d.deliveredAt !== null);
  });
  t.is(receiver.received.length, log.length);
  const byId = (a: number, b: number) => a - b;
  t.deepEqual(receiver.received.map((r) => Number(r.delivery)).sort(byId), log.map((d) => d.id).sort(byId));
  const createdCodes = created().map((r) => (r.json as unknown as { link: { code: string } }).link.code);
  t.deepEqual([...createdCodes].sort(), [...codes, 'from-cli'].sort());
  t.is(receiver.received.filter((r) => r.event === 'link.deleted').length, 1);
  t.is(clicks().length, CLICKS);
  for (const r of receiver.received) t.true(verifySignature(hook.secret, r.signature, r.body).valid);
  t.is(await kurz.stop(), 0);
});

// Three nodes on one PostgreSQL database each deliver: the store's transactions keep them from sending twice.
const nodesTest = backend === 'postgres' ? test : test.skip;

nodesTest('three PostgreSQL nodes, each delivering, send every event once', async (t) => {
  const receiver = await webhookReceiver(t);
  const env = {
    ...(await freshDatabase(t)).env,
    KURZ_WEBHOOK_ALLOW_PRIVATE: 'on',
    KURZ_WEBHOOK_INTERVAL: '50ms',
    KURZ_PUBLIC_URL: 'https://kurz.test',
  };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const nodes: ServeProcess[] = [];
  for (let i = 0; i < 3; i++) nodes.push(await startServe(t, env));
  const added = await freshRequest(`${nodes[0]!.url}/api/v1/webhooks`, {
    method: 'POST',
    body: { url: receiver.url, events: ['link.created'] },
    key,
  });
  t.is(added.status, 201, added.body);
  const hook = JSON.parse(added.body) as { id: number };

  const codes = await Promise.all(
    Array.from({ length: 60 }, (_, i) => createThrough(nodes[i % 3]!.url, key, `https://example.com/n/${i}`)),
  );
  await waitFor(() => receiver.received.length >= codes.length, 20_000);
  let log: Array<{ id: number; deliveredAt: string | null }> = [];
  await waitFor(async () => {
    const answer = await freshRequest(`${nodes[1]!.url}/api/v1/webhooks/${hook.id}/deliveries`, { key });
    log = (JSON.parse(answer.body) as { deliveries: typeof log }).deliveries;
    return log.length === codes.length && log.every((d) => d.deliveredAt !== null);
  });
  const byId = (a: number, b: number) => a - b;
  t.deepEqual(receiver.received.map((r) => Number(r.delivery)).sort(byId), log.map((d) => d.id).sort(byId));
  t.deepEqual(receiver.received.map((r) => (r.json as unknown as { link: { code: string } }).link.code).sort(), [...codes].sort());
});

test('a delivery that failed before kurz stopped is tried again after it starts again', async (t) => {
  const receiver = await webhookReceiver(t, [500, 204]);
  const env = {
    ...(await freshDatabase(t)).env,
    KURZ_WEBHOOK_ALLOW_PRIVATE: 'on',
    KURZ_WEBHOOK_INTERVAL: '100ms',
    KURZ_WEBHOOK_RETRY_BASE: '1s',
    KURZ_PUBLIC_URL: 'https://kurz.test',
  };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  t.is(made.code, 0, made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const first = await startServe(t, env);
  const added = await freshRequest(`${first.url}/api/v1/webhooks`, {
    method: 'POST',
    body: { url: receiver.url, events: ['link.created'] },
    key,
  });
  const hook = JSON.parse(added.body) as { id: number };
  await createThrough(first.url, key, 'https://example.com/survives');
  await waitFor(() => receiver.received.length === 1);
  t.is(await first.stop(), 0);

  const second = await startServe(t, env);
  await waitFor(() => receiver.received.length === 2);
  t.is(receiver.received[1]!.delivery, receiver.received[0]!.delivery);
  t.is(receiver.received[1]!.body, receiver.received[0]!.body);
  await waitFor(async () => {
    const log = JSON.parse((await freshRequest(`${second.url}/api/v1/webhooks/${hook.id}/deliveries`, { key })).body) as {
      deliveries: Array<{ attempts: number; lastStatus: number | null; deliveredAt: string | null }>;
    };
    return log.deliveries.length === 1 && log.deliveries[0]!.attempts === 2 && log.deliveries[0]!.deliveredAt !== null;
  });
  t.is(await second.stop(), 0);
});
