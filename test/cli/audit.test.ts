import test from 'ava';
import type { Actor } from '../../src/auth/actor.ts';
import { runCli, startKurz } from '../helpers.ts';

// kurz audit: the entries a server recorded (seeded through services.audit.record), as a table or JSON
// lines, filtered; bad flags exit 2. And kurz prune deletes entries past auditRetentionDays.

const DAY = 86_400_000;
const HOUR = 3_600_000;
const ADMIN: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'cli' } };
const ANA: Actor = { userId: 2, name: 'ana', role: 'member', via: { kind: 'key', key: 'deploy' }, client: '198.51.100.7' };

/** A server's database with link "a" and four entries: 400 days, 3 days (a's creation), 2 days and 1 hour ago (by the real clock, the CLI's). */
async function seeded(t: Parameters<typeof startKurz>[0]) {
  const k = await startKurz(t);
  const { audit, creation } = k.kurz.services;
  const ago = (time: number) => k.clock.advance(Date.now() - time - k.clock.now());
  const at = async (time: number, ...args: Parameters<typeof audit.record>) => {
    ago(time);
    await audit.record(...args);
  };
  await at(400 * DAY, ADMIN, 'domain.add', { kind: 'domain', id: 1, label: 'old.example' });
  ago(3 * DAY);
  const { id } = (await creation.createLink(ADMIN, { url: 'https://example.com/a', alias: 'a' })).link;
  await at(2 * DAY, ANA, 'link.move', { kind: 'link', id, label: 's2.example/a' }, { from: 'kurz.test', to: 's2.example' });
  await at(HOUR, ANA, 'key.revoke', { kind: 'key', id: 4, label: 'deploy' });
  const env = k.database.env;
  return { k, env, kurz: (...args: string[]) => runCli(args, env) };
}

test('kurz audit prints a table newest first; --json prints one entry a line; filters narrow it', async (t) => {
  const { kurz } = await seeded(t);
  const all = await kurz('audit');
  t.is(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split('\n');
  t.regex(lines[0]!, /^AT +USER +VIA +ACTION +SUBJECT +DETAILS$/);
  t.is(lines.length, 5);
  t.regex(lines[1]!, /ana +key deploy +key\.revoke +key deploy/);
  t.regex(lines[2]!, /ana +key deploy +link\.move +link s2\.example\/a +from=kurz\.test to=s2\.example$/);
  t.regex(lines[4]!, /admin +cli +domain\.add +domain old\.example/);

  const json = await kurz('audit', '--json', '--user', 'ana');
  t.is(json.code, 0);
  const entries = json.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { action: string; actorName: string; keyName: string; client: string });
  t.deepEqual(
    entries.map((e) => e.action),
    ['key.revoke', 'link.move'],
  );
  t.like(entries[0], { actorName: 'ana', keyName: 'deploy', client: '198.51.100.7' });

  const actions = async (...args: string[]) =>
    (await kurz('audit', '--json', ...args)).stdout
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { action: string }).action);
  t.deepEqual(await actions('--action', 'link'), ['link.move', 'link.create']);
  t.deepEqual(await actions('--action', 'link.create'), ['link.create']);
  t.deepEqual(await actions('--link', 'a'), ['link.move', 'link.create']);
  t.deepEqual(await actions('--since', '60h'), ['key.revoke', 'link.move']);
  t.deepEqual(await actions('--since', new Date(Date.now() - 10 * DAY).toISOString().slice(0, 10)), [
    'key.revoke',
    'link.move',
    'link.create',
  ]);
  t.deepEqual(await actions('--limit', '1'), ['key.revoke']);
  t.deepEqual(await actions('--user', 'nobody'), []);
  t.is((await kurz('audit', '--link', 'nope')).code, 1, 'an unknown link');
});

test('kurz audit refuses bad flags with exit 2 and a message naming the flag', async (t) => {
  const { kurz } = await seeded(t);
  for (const [args, message] of [
    [['--limit', '0'], /--limit must be a whole number from 1 to 500/],
    [['--limit', '501'], /--limit/],
    [['--limit', 'x'], /--limit/],
    [['--action', 'link.frobnicate'], /--action must be an action/],
    [['--since', 'yesterday'], /--since must be a positive duration/],
    [['--since', '2026-13-45'], /--since must be an ISO 8601 date/],
    [['--domain', 's2.example'], /--domain names the domain of --link/],
    [['--frob'], /frob/],
  ] as const) {
    const result = await kurz('audit', ...args);
    t.is(result.code, 2, args.join(' '));
    t.regex(result.stderr, message, args.join(' '));
  }
});

test('kurz prune deletes audit entries past auditRetentionDays; --dry-run counts them; 0 keeps them', async (t) => {
  const { env, kurz } = await seeded(t);
  const dry = await kurz('prune', '--dry-run', '--json');
  t.like(JSON.parse(dry.stdout), { dryRun: true, audit: 1 });
  const forever = await runCli(['prune', '--json'], { ...env, KURZ_AUDIT_RETENTION_DAYS: '0' });
  t.like(JSON.parse(forever.stdout), { audit: 0 });
  const pruned = await kurz('prune');
  t.regex(pruned.stdout, /deleted 1 audit entries older than 365 days\n$/);
  const shorter = await runCli(['prune', '--json'], { ...env, KURZ_AUDIT_RETENTION_DAYS: '1' });
  t.like(JSON.parse(shorter.stdout), { audit: 2 });
  t.is((await kurz('audit')).stdout.trimEnd().split('\n').length, 2, 'the header and the newest entry');
});
