import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';
import { memoryLogger } from '../../src/core/log.ts';
import { BROWSER_ACCEPT, freshDatabase, runCli, startKurz, tempDir, waitFor, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

/** Abuse screening with blocklist files: creations refused, existing links disabled and brought back, the UI and the log. */

interface Problem {
  status: number;
  code: string;
  detail: string;
  field?: string;
}

interface LinkBody {
  code: string;
  url: string;
  enabled: boolean;
  blocked: { rule: string; list: string; at: string } | null;
}

/** A folder with `hosts.txt` holding `text`; returns the file's path. */
function listFile(t: ExecutionContext, text: string, name = 'hosts.txt'): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, text);
  return path;
}

/** Replaces the file as download scripts do: written beside it, then renamed over it. */
function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function startScreening(t: ExecutionContext, blocklist: string, settings: Record<string, unknown> = {}): Promise<TestKurz> {
  const k = await startKurz(t, { blocklist, ...settings });
  await k.kurz.services.screening.idle();
  return k;
}

/** GET without following, as a visitor's script would. */
const follow = (k: TestKurz, path: string, headers: Record<string, string> = {}) => fetch(k.base + path, { redirect: 'manual', headers });

async function create(k: TestKurz, body: Record<string, unknown>): Promise<LinkBody> {
  const res = await k.postJson('/api/v1/links', body);
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
  return (await res.json()) as LinkBody;
}

test('a creation to a listed target is refused through the API, a batch, the form and the bulk page, and nothing is stored', async (t) => {
  const file = listFile(t, '# test list\n0.0.0.0 evil.example\nphish.example\nhttp://shared.example/malware.exe\n');
  const k = await startScreening(t, file);

  const refused: Array<[string, RegExp]> = [
    ['https://evil.example/login', /^url's host "evil\.example" is on a blocklist \(in hosts\.txt\)$/],
    ['https://www.phish.example/', /^url's domain "www\.phish\.example" is on a blocklist \(rule "phish\.example" in hosts\.txt\)$/],
    ['HTTP://Shared.Example/malware.exe#x', /^url is on a blocklist \(in hosts\.txt\)$/],
  ];
  for (const [url, detail] of refused) {
    const res = await k.postJson('/api/v1/links', { url });
    t.is(res.status, 400, url);
    const problem = (await res.json()) as Problem;
    t.is(problem.code, 'invalid');
    t.is(problem.field, 'url');
    t.regex(problem.detail, detail);
    t.false(problem.detail.includes(file), 'the message names the file, not its folder');
  }
  // Not listed: a hosts entry is that host only, a URL entry that URL only.
  t.is((await k.postJson('/api/v1/links', { url: 'https://www.evil.example/' })).status, 201);
  t.is((await k.postJson('/api/v1/links', { url: 'http://shared.example/other.pdf' })).status, 201);

  const batch = await k.postJson('/api/v1/links/batch', { links: [{ url: 'https://ok.example/1' }, { url: 'https://evil.example/2' }] });
  const results = ((await batch.json()) as { results: Array<{ status: string; error?: Problem & { message: string } }> }).results;
  t.deepEqual(
    results.map((r) => r.status),
    ['created', 'error'],
  );
  t.regex(results[1]?.error?.message ?? '', /is on a blocklist/);

  const b = await browser(k);
  const form = await b.submit('/', { url: 'https://evil.example/form' });
  t.is(form.status, 400);
  t.regex(await form.text(), /Long URL&#39;s host &quot;evil\.example&quot; is on a blocklist \(in hosts\.txt\)/);
  const bulk = await b.submit('/import', { urls: 'https://ok.example/bulk\nhttps://sub.phish.example/bulk' });
  const html = await bulk.text();
  t.regex(html, /1 created, 0 already shortened, 1 failed/);
  t.regex(html, /rule &quot;phish\.example&quot; in hosts\.txt/);

  t.is(await k.linkCount(), 4, 'only the four links to unlisted targets');
});

test('an edit to a listed target is refused and changes nothing', async (t) => {
  const k = await startScreening(t, listFile(t, 'evil.example\n'));
  const { code } = await create(k, { url: 'https://good.example/' });
  const res = await k.request('PATCH', `/api/v1/links/${code}`, { url: 'https://cdn.evil.example/x' });
  t.is(res.status, 400);
  t.regex(
    ((await res.json()) as Problem).detail,
    /url's domain "cdn\.evil\.example" is on a blocklist \(rule "evil\.example" in hosts\.txt\)/,
  );
  t.is(((await (await k.get(`/api/v1/links/${code}`)).json()) as LinkBody).url, 'https://good.example/');
});

test('a link whose target becomes listed answers 410 with a page saying why, and comes back when the entry goes', async (t) => {
  const file = listFile(t, '# nothing yet\n');
  const k = await startScreening(t, file);
  const victim = await create(k, { url: 'https://cdn.turned-bad.example/file.zip' });
  const other = await create(k, { url: 'https://fine.example/' });
  const switchedOff = await create(k, { url: 'https://turned-bad.example/off', enabled: false });
  // Followed twice: it is then in the redirect cache (whatever its admission rule), which the block must reach.
  t.is((await follow(k, `/${victim.code}`)).status, 302);
  t.is((await follow(k, `/${victim.code}`)).status, 302);

  replaceFile(file, '# a bad day\nturned-bad.example\n');
  await waitFor(async () => (await follow(k, `/${victim.code}`)).status === 410);
  await k.kurz.services.screening.idle();
  const problem = (await (await follow(k, `/${victim.code}`)).json()) as Problem;
  t.is(problem.code, 'gone');
  t.is(problem.detail, `the link "${victim.code}" was disabled because its target is on a blocklist of malicious sites`);
  const page = await follow(k, `/${victim.code}`, { accept: BROWSER_ACCEPT });
  t.is(page.status, 410);
  t.regex(await page.text(), /was disabled because its target is on a blocklist of malicious sites/);
  t.is((await follow(k, `/${other.code}`)).status, 302, 'a link to another target is untouched');

  const shown = (await (await k.get(`/api/v1/links/${victim.code}`)).json()) as LinkBody;
  t.true(shown.enabled, "the person's own switch is untouched");
  t.deepEqual(shown.blocked, { rule: 'turned-bad.example', list: 'hosts.txt', at: new Date(k.clock.now()).toISOString() });
  t.regex(
    k.log.lines.join('\n'),
    new RegExp(
      `info link blocked: its target is on a blocklist code=${victim.code} host=cdn\\.turned-bad\\.example rule=turned-bad\\.example list=hosts\\.txt`,
    ),
  );
  t.regex(k.log.lines.join('\n'), /info blocklist loaded file=\S+hosts\.txt hosts=0 domains=1 urls=0 invalid=0/);
  t.regex(k.log.lines.join('\n'), /info blocklist screened the links links=3 blocked=2 unblocked=0/);

  replaceFile(file, '# all clear\n');
  await waitFor(async () => (await follow(k, `/${victim.code}`)).status === 302);
  await k.kurz.services.screening.idle();
  t.is(((await (await k.get(`/api/v1/links/${victim.code}`)).json()) as LinkBody).blocked, null);
  t.regex(k.log.lines.join('\n'), new RegExp(`info link unblocked: its target is no longer on a blocklist code=${victim.code}`));
  const off = (await (await k.get(`/api/v1/links/${switchedOff.code}`)).json()) as LinkBody;
  t.deepEqual([off.enabled, off.blocked], [false, null]);
  t.is((await follow(k, `/${switchedOff.code}`)).status, 410, 'a link its owner disabled stays disabled');
});

test('a link is blocked when a rule’s target or a variant of its split becomes listed, and unblocked when it goes', async (t) => {
  const file = listFile(t, '# nothing yet\n');
  const k = await startScreening(t, file);
  const ruled = await create(k, { url: 'https://fine.example/ruled' });
  const rules = [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://turned-bad.example/de' }];
  t.is((await k.request('PUT', `/api/v1/links/${ruled.code}/rules`, { rules })).status, 200);
  const split = await create(k, {
    url: 'https://fine.example/split',
    split: [
      { url: 'https://fine.example/a', weight: 1 },
      { url: 'https://cdn.turned-bad.example/b', weight: 1, paused: true },
    ],
  });
  const plain = await create(k, { url: 'https://fine.example/plain' });
  t.is((await follow(k, `/${ruled.code}`)).status, 302);

  replaceFile(file, '# a bad day\nturned-bad.example\n');
  await waitFor(async () => (await follow(k, `/${ruled.code}`)).status === 410);
  await k.kurz.services.screening.idle();
  t.is((await follow(k, `/${split.code}`)).status, 410, 'a paused variant may be resumed any time: it counts');
  t.is((await follow(k, `/${plain.code}`)).status, 302);
  t.regex(
    k.log.lines.join('\n'),
    new RegExp(`info link blocked: its target is on a blocklist code=${ruled.code} host=turned-bad\\.example `),
  );
  t.regex(
    k.log.lines.join('\n'),
    new RegExp(`info link blocked: its target is on a blocklist code=${split.code} host=cdn\\.turned-bad\\.example `),
  );

  replaceFile(file, '# all clear\n');
  await waitFor(async () => (await follow(k, `/${ruled.code}`)).status === 302);
  await k.kurz.services.screening.idle();
  t.is((await follow(k, `/${split.code}`)).status, 302);
});

test('a new target brings a blocked link back at once; the list filter and the UI show blocked links', async (t) => {
  const file = listFile(t, '0.0.0.0 bad.example\n');
  const k = await startKurz(t, { blocklist: file });
  const a = await create(k, { url: 'https://fine.example/a' });
  const b = await create(k, { url: 'https://fine.example/b', title: 'Stays fine' });
  replaceFile(file, '0.0.0.0 bad.example\n0.0.0.0 fine.example\n');
  await waitFor(async () => (await follow(k, `/${a.code}`)).status === 410);
  await k.kurz.services.screening.idle();

  const listed = (await (await k.get('/api/v1/links?blocked=true')).json()) as { links: LinkBody[] };
  t.deepEqual(listed.links.map((l) => l.code).sort(), [a.code, b.code].sort());
  const wrong = await k.get('/api/v1/links?blocked=yes');
  t.is(wrong.status, 400);
  t.is(((await wrong.json()) as Problem).field, 'blocked');

  const ui = await browser(k);
  const dashboard = (await ui.page('/')).html;
  t.regex(dashboard, /<a href="\/links\?blocked=true">2 links<\/a> are disabled because their targets are on the blocklist/);
  t.regex(dashboard, /2 entries in hosts\.txt/);
  const list = (await ui.page('/links?blocked=true')).html;
  t.is(list.match(/class="state state-off state-blocked">blocked</g)?.length, 2);
  t.regex(list, /<option value="true" selected>Blocked \(2\)<\/option>/);
  const linkPage = (await ui.page(`/links/${a.code}`)).html;
  t.regex(linkPage, /id="blocked-reason">Disabled because its target is on a blocklist: “fine\.example” is listed in hosts\.txt/);
  t.regex(linkPage, /<dd id="blocked-state">listed: “fine\.example” in hosts\.txt<\/dd>/);
  const settings = (await ui.page('/settings')).html;
  t.regex(settings, /<h2 id="blocklists">Blocklists<\/h2>/);
  t.regex(settings, new RegExp(`<code>${file.replace(/[.]/g, '\\.')}</code>`));

  const edited = await k.request('PATCH', `/api/v1/links/${a.code}`, { url: 'https://elsewhere.example/a' });
  t.is(edited.status, 200);
  t.is(((await edited.json()) as LinkBody).blocked, null);
  t.is((await follow(k, `/${a.code}`)).status, 302);
  t.is((await follow(k, `/${b.code}`)).status, 410);
  t.regex((await ui.page('/')).html, /1 link<\/a> is disabled because its target is on the blocklist/);
});

test('a file that cannot be read keeps the list in force and says why; lines not understood are logged with their numbers', async (t) => {
  const file = listFile(t, '0.0.0.0 evil.example\nthis line means nothing\n||ads.example^$third-party\n');
  const k = await startScreening(t, file);
  const log = () => k.log.lines.join('\n');
  t.regex(log(), /info blocklist loaded file=\S+ hosts=1 domains=0 urls=0 invalid=2/);
  t.regex(log(), /info blocklist line skipped: not understood file=\S+ line=2 text="this line means nothing" reason=.*invalidLines=2/);
  t.regex(log(), /info blocklist line skipped: not understood file=\S+ line=3 text=\|\|ads\.example\^\$third-party reason=/);

  rmSync(file);
  await waitFor(() => /error blocklist not reloaded; the list before stays in force reason="cannot read \S+: no such file"/.test(log()));
  t.is((await k.postJson('/api/v1/links', { url: 'https://evil.example/' })).status, 400, 'the list before is still in force');
  const ui = await browser(k);
  t.regex((await ui.page('/settings')).html, /id="blocklist-failure">The last change could not be read/);

  writeFileSync(file, '0.0.0.0 other.example\n');
  await waitFor(async () => (await k.postJson('/api/v1/links', { url: 'https://evil.example/' })).status === 201);
  t.is((await k.postJson('/api/v1/links', { url: 'https://other.example/' })).status, 400);
});

test('a blocklist file missing at start stops the start, naming the file', async (t) => {
  const database = await freshDatabase(t);
  const missing = join(tempDir(t), 'missing.txt');
  const config = loadConfig({ file: { ...database.settings, port: 0, blocklist: missing } });
  await t.throwsAsync(
    createApp(config, { now: Date.now, random: () => Buffer.alloc(32, 1), log: memoryLogger() }, { backgroundWriter: false }),
    {
      message: `blocklist: cannot read ${missing}: no such file`,
    },
  );
});

test('links another process stored without the list are blocked by the next pass, and at the next start', async (t) => {
  const file = listFile(t, 'evil.example\n');
  const k = await startScreening(t, file);
  // A command run without the server's settings checks nothing against the list.
  const create = (alias: string) => runCli(['create', `https://evil.example/${alias}`, '--alias', alias, ...k.database.flags], {});
  t.is((await create('first')).code, 0);
  t.is((await follow(k, '/first')).status, 302);
  await k.kurz.services.screening.screenAgain();
  t.is((await follow(k, '/first')).status, 410);

  await k.kurz.close();
  t.is((await create('second')).code, 0);
  const log = memoryLogger();
  const config = loadConfig({ file: { ...k.database.settings, port: 0, publicUrl: 'https://kurz.test', blocklist: file } });
  const kurz = await createApp(config, { now: Date.now, random: () => Buffer.alloc(32, 1), log }, { backgroundWriter: false });
  t.teardown(() => kurz.close());
  await kurz.services.screening.idle();
  t.regex(log.lines.join('\n'), /link blocked: its target is on a blocklist code=second/);
  t.is((await kurz.services.links.existingLink(SERVER_ADMIN, 'second')).blocked?.rule, 'evil.example');
});

test('a scan the database could not finish is tried again', async (t) => {
  let failures = 1;
  const k = await startKurz(
    t,
    { blocklist: listFile(t, 'evil.example\n') },
    {
      adaptStorage: (storage) => ({
        ...storage,
        links: {
          ...storage.links,
          liveUrlsAfter: (after, limit) =>
            failures-- > 0 ? Promise.reject(new Error('the database is unreachable')) : storage.links.liveUrlsAfter(after, limit),
        },
      }),
    },
  );
  await k.database.insert('links', [{ id: 1_000_000, code: 'planted', url: 'https://evil.example/x', created_at: 0, updated_at: 0 }]);
  await waitFor(() => k.log.lines.some((l) => /blocklist screened the links links=1 blocked=1/.test(l)), 20_000);
  t.regex(
    k.log.lines.join('\n'),
    /error blocklist: the links could not be screened; trying again soon reason="the database is unreachable" inMs=5000/,
  );
  t.is((await follow(k, '/planted')).status, 410);
});
