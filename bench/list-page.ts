// Times the link list page (GET /links) on a seeded database, as the server measures it (the access log's
// durationMs): the newest page, sorted by visits, filtered by a tag, searched, and a later page.
// Usage: node bench/list-page.ts DB_FILE [ROUNDS]   (seed first: node bench/seed.ts DB_FILE CODES N --options)
// Prints one JSON line per page: { path, medianMs, p90Ms, bytes }; then the bulk form disabling and enabling a
// page of 100 links, one request each: { path, ms } (this changes the database: time a copy).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/core/log.ts';

const [dbFile, roundsText = '30'] = process.argv.slice(2);
const rounds = Number(roundsText);
if (!dbFile || !Number.isSafeInteger(rounds) || rounds < 1) throw new Error('usage: node bench/list-page.ts DB_FILE [ROUNDS]');

const PASSWORD = 'list page bench password';
const config = loadConfig({
  env: { KURZ_DB: dbFile },
  file: { port: 0, publicUrl: 'https://kurz.test', accessLog: true, logFormat: 'json' },
});
const durations: number[] = [];
const logStream = {
  write: (text: string) => {
    for (const line of text.trimEnd().split('\n')) {
      const entry = JSON.parse(line) as { durationMs?: number; path?: string };
      if (entry.durationMs !== undefined && entry.path?.startsWith('/links')) durations.push(entry.durationMs);
    }
    return true;
  },
};
// In this process alone: the background writer would start this script again as its child.
const kurz = await createApp(
  config,
  { now: Date.now, random: randomBytes, log: createLogger({ write: () => true }), logStream },
  { backgroundWriter: false },
);
const server = createServer(kurz.callback).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const accept = 'text/html';

/** The cookies of a response's Set-Cookie headers, as a Cookie header. */
const cookiesOf = (res: Response, jar = ''): string =>
  [jar, ...res.headers.getSetCookie().map((line) => line.split(';')[0])].filter(Boolean).join('; ');

try {
  await kurz.services.access.setPassword(PASSWORD);
  const form = await fetch(`${base}/login`, { headers: { accept } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded', accept },
    body: new URLSearchParams({ _csrf: csrf, user: config.adminUser, password: PASSWORD, next: '/' }),
    redirect: 'manual',
  });
  if (login.status !== 303) throw new Error(`login failed: ${login.status}`);
  const cookie = cookiesOf(login, cookiesOf(form));
  const first = await (await fetch(`${base}/links`, { headers: { cookie, accept } })).text();
  const next = /href="([^"]+)" rel="next"/.exec(first)?.[1]?.replaceAll('&amp;', '&');
  const paths = ['/links', '/links?limit=100', '/links?sort=visits', '/links?tag=bench', '/links?q=example', ...(next ? [next] : [])];
  for (const path of paths) {
    durations.length = 0;
    let bytes = 0;
    for (let i = 0; i < rounds + 3; i++) {
      const res = await fetch(base + path, { headers: { cookie, accept } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      bytes = (await res.text()).length;
    }
    // The first three warm the caches and the JIT.
    const sorted = durations.slice(3).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    console.log(JSON.stringify({ path, medianMs: at(0.5), p90Ms: at(0.9), bytes }));
  }
  // The bulk form on a full page: 100 links disabled, then enabled again, one request each (it changes the database).
  const full = await (await fetch(`${base}/links?limit=100`, { headers: { cookie, accept } })).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(full)?.[1] ?? '';
  const picked = [...full.matchAll(/name="link" value="([^"]+)"/g)].map((m) => ['link', m[1] ?? ''] as [string, string]);
  for (const action of ['disable', 'enable']) {
    durations.length = 0;
    const res = await fetch(`${base}/links`, {
      method: 'POST',
      headers: { cookie, accept, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([['_csrf', token], ['action', action], ...picked]),
      redirect: 'manual',
    });
    if (res.status !== 303) throw new Error(`bulk ${action}: ${res.status}`);
    console.log(JSON.stringify({ path: `POST /links ${action} ${picked.length}`, ms: durations[0] }));
  }
} finally {
  server.close();
  await kurz.close();
}
