import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { UA } from '../fixtures/user-agents.ts';
import { member } from './members.ts';
import { browser } from './ui-session.ts';

// A link's redirect rules (issue 26, part B): set and read through PUT/GET /api/v1/links/CODE/rules, stored
// on the backend of the run, and applied by the redirect with the real headers a phone and a desktop send.

const PLAIN = 'https://example.com/plain';

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** A visitor's GET of `/CODE?query`, with the headers given (a desktop Chrome by default). */
function visit(k: TestKurz, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${k.base}/${path}`, {
    headers: { 'user-agent': UA.desktopChromeWindows, accept: BROWSER_ACCEPT, ...headers },
    redirect: 'manual',
  });
}

async function linkWith(k: TestKurz, alias: string, rules: unknown[]): Promise<void> {
  const created = await k.postJson('/api/v1/links', { url: PLAIN, alias });
  if (created.status !== 201) throw new Error(`creating ${alias}: ${created.status}`);
  const set = await k.request('PUT', `/api/v1/links/${alias}/rules`, { rules });
  if (set.status !== 200) throw new Error(`setting the rules of ${alias}: ${set.status} ${await set.text()}`);
}

const where = async (res: Response | Promise<Response>) => (await res).headers.get('location');

test('PUT sets the rules, GET returns them as set (targets normalised); [] clears them', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ruled' });
  t.deepEqual(await json(await k.get('/api/v1/links/ruled/rules')), { rules: [] });
  const rules = [
    { conditions: [{ type: 'language', matchValue: 'de' }], target: 'HTTPS://Example.DE/seite' },
    {
      conditions: [
        { type: 'query-param', matchKey: 'utm', matchValue: 'x' },
        { type: 'device', matchValue: 'mobile' },
      ],
      refuse: 451,
    },
  ];
  const put = await k.request('PUT', '/api/v1/links/ruled/rules', { rules });
  t.is(put.status, 200);
  const stored = {
    rules: [
      { conditions: [{ type: 'language', matchKey: null, matchValue: 'de' }], target: 'https://example.de/seite' },
      {
        conditions: [
          { type: 'query-param', matchKey: 'utm', matchValue: 'x' },
          { type: 'device', matchKey: null, matchValue: 'mobile' },
        ],
        refuse: 451,
      },
    ],
  };
  t.deepEqual(await json(put), stored);
  t.deepEqual(await json(await k.get('/api/v1/links/ruled/rules')), stored);
  const [entry] = (await json<{ entries: Array<{ action: string; details: unknown }> }>(await k.get('/api/v1/links/ruled/audit'))).entries;
  t.deepEqual(entry, { ...entry, action: 'link.edit', details: { rules: 2 } });

  const cleared = await k.request('PUT', '/api/v1/links/ruled/rules', { rules: [] });
  t.deepEqual(await json(cleared), { rules: [] });
  t.deepEqual(await json(await k.get('/api/v1/links/ruled/rules')), { rules: [] });
  const [row] = await k.sql<{ rules: string | null }>("SELECT rules FROM links WHERE code = 'ruled'");
  t.is(row?.rules, null, 'no rules are stored as NULL');
});

test('malformed rules are a 400 naming rules[i] and the field; a page the link has no text for is refused', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'bad' });
  const cases: Array<[unknown, string, RegExp]> = [
    [{ rules: 'all' }, 'rules', /^rules must be a list of rules$/],
    [{}, 'rules', /^rules is required: a list of rules/],
    [
      { rules: [{ conditions: [], page: 'notice' }] },
      'rules[0].page',
      /^rules\[0\]\.page: the link has no notice to show; set pages\.notice first/,
    ],
    [
      {
        rules: [
          { conditions: [{ type: 'language', matchValue: 'de' }], target: PLAIN },
          { conditions: [{ type: 'ip-address', matchValue: '10.0.0.0/33' }], target: PLAIN },
        ],
      },
      'rules[1].conditions[0].matchValue',
      /is not a CIDR range/,
    ],
    [
      { rules: [{ conditions: [{ type: 'geolocation-country-code', matchValue: 'XX' }], refuse: 451 }] },
      'rules[0].conditions[0].matchValue',
      /unknown country code XX/,
    ],
    [{ rules: [{ conditions: [{ type: 'colour', matchValue: 'red' }], target: PLAIN }] }, 'rules[0].conditions[0].type', /must be one of/],
    [
      { rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'ftp://example.com/' }] },
      'rules[0].target',
      /^rules\[0\]\.target: /,
    ],
    [{ rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], refuse: 404 }] }, 'rules[0].refuse', /must be 451 or 403/],
    [{ rules: [{ conditions: [{ type: 'language', matchValue: 'de' }] }] }, 'rules[0]', /has no action/],
    [
      { rules: Array.from({ length: 51 }, () => ({ conditions: [{ type: 'language', matchValue: 'de' }], refuse: 403 })) },
      'rules',
      /at most 50 rules/,
    ],
    [
      {
        rules: [
          {
            conditions: [{ type: 'language', matchValue: 'de' }],
            split: [
              { url: PLAIN, weight: 1 },
              { url: 'https://example.com/b', weight: 0 },
            ],
          },
        ],
      },
      'rules[0].split[1].weight',
      /^rules\[0\]\.split\[1\]\.weight must be at least 1/,
    ],
    [{ rules: [], extra: 1 }, 'extra', /unknown field "extra"/],
  ];
  for (const [body, field, message] of cases) {
    const res = await k.request('PUT', '/api/v1/links/bad/rules', body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    const problem = await json<{ code: string; field: string; detail: string }>(res);
    t.is(problem.code, 'invalid');
    t.is(problem.field, field, problem.detail);
    t.regex(problem.detail, message);
  }
  const notJson = await k.request('PUT', '/api/v1/links/bad/rules', '{"rules": [', { 'content-type': 'application/json' });
  t.is(notJson.status, 400);
  t.deepEqual(await json(await k.get('/api/v1/links/bad/rules')), { rules: [] }, 'nothing was stored');
  t.is((await k.request('PUT', '/api/v1/links/nosuch/rules', { rules: [] })).status, 404);
  t.is((await k.request('DELETE', '/api/v1/links/bad')).status, 204);
  t.is((await k.request('PUT', '/api/v1/links/bad/rules', { rules: [] })).status, 410);
});

test('a member can neither read nor set another’s rules (404); their own, yes; a key needs links:read / links:write', async (t) => {
  const k = await startKurz(t);
  const alice = await member(k, 'alice');
  const bob = await member(k, 'bob');
  t.is((await alice.api('POST', '/api/v1/links', { url: PLAIN, alias: 'alices' })).status, 201);
  const rules = [{ conditions: [{ type: 'language', matchValue: 'fr' }], target: 'https://example.fr/' }];
  t.is((await alice.api('PUT', '/api/v1/links/alices/rules', { rules })).status, 200);
  const read = await bob.api('GET', '/api/v1/links/alices/rules');
  t.is(read.status, 404);
  t.like(await json(read), { code: 'not_found' });
  t.is((await bob.api('PUT', '/api/v1/links/alices/rules', { rules: [] })).status, 404);
  t.is((await alice.api('GET', '/api/v1/links/alices/rules')).status, 200);
  t.is((await k.get('/api/v1/links/alices/rules')).status, 200, 'an admin sees any link’s');
  t.is(await where(visit(k, 'alices', { 'accept-language': 'fr-FR' })), 'https://example.fr/', 'bob changed nothing');

  const user = await k.kurz.services.access.userByName('alice');
  const readOnly = (await k.kurz.services.access.createKey(user!.id, 'read only', { scopes: ['links:read'] })).secret;
  const asReader = (method: string, body?: unknown) =>
    fetch(`${k.base}/api/v1/links/alices/rules`, {
      method,
      headers: { authorization: `Bearer ${readOnly}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  t.is((await asReader('GET')).status, 200);
  t.is((await asReader('PUT', { rules: [] })).status, 403);
});

test('the redirect follows the rules: language, device (iPhone vs desktop), query, address, date; else the link’s own target', async (t) => {
  const k = await startKurz(t);
  const at = new Date(k.clock.now());
  const later = new Date(k.clock.now() + 3_600_000).toISOString().slice(0, 19);
  await linkWith(k, 'lang', [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' }]);
  await linkWith(k, 'device', [
    {
      conditions: [
        { type: 'device', matchValue: 'mobile' },
        { type: 'os', matchValue: 'ios' },
      ],
      target: 'https://apps.apple.com/app/kurz',
    },
  ]);
  await linkWith(k, 'param', [
    { conditions: [{ type: 'query-param', matchKey: 'src', matchValue: 'mail' }], target: 'https://example.com/from-mail' },
    { conditions: [{ type: 'query-param-absent', matchKey: 'src' }], target: 'https://example.com/no-src' },
  ]);
  await linkWith(k, 'addr', [{ conditions: [{ type: 'ip-address', matchValue: '127.0.0.0/8' }], target: 'https://intranet.example/' }]);
  await linkWith(k, 'other', [{ conditions: [{ type: 'ip-address', matchValue: '10.*.*.*' }], target: 'https://intranet.example/' }]);
  await linkWith(k, 'launch', [{ conditions: [{ type: 'before-date', matchValue: later }], target: 'https://example.com/teaser' }]);

  t.is(await where(visit(k, 'lang', { 'accept-language': 'de-AT,de;q=0.9,en;q=0.8' })), 'https://example.de/');
  t.is(await where(visit(k, 'lang', { 'accept-language': 'en-GB,en;q=0.9,de;q=0.5' })), PLAIN, 'German is not the first choice');
  t.is(await where(visit(k, 'lang')), PLAIN, 'no Accept-Language');

  t.is(await where(visit(k, 'device', { 'user-agent': UA.iphoneSafari })), 'https://apps.apple.com/app/kurz');
  t.is(await where(visit(k, 'device', { 'user-agent': UA.androidChromePhone })), PLAIN, 'a phone, but not iOS');
  t.is(await where(visit(k, 'device', { 'user-agent': UA.desktopChromeMac })), PLAIN);

  t.is(await where(visit(k, 'param?src=mail')), 'https://example.com/from-mail');
  t.is(await where(visit(k, 'param?src=web')), PLAIN);
  t.is(await where(visit(k, 'param')), 'https://example.com/no-src');

  t.is(await where(visit(k, 'addr')), 'https://intranet.example/', 'the test server sees 127.0.0.1');
  t.is(await where(visit(k, 'other')), PLAIN);

  t.true(k.clock.now() === at.getTime());
  t.is(await where(visit(k, 'launch')), 'https://example.com/teaser');
  k.clock.advance(3_600_001);
  t.is(await where(visit(k, 'launch')), PLAIN, 'after the date the teaser is over');

  // Each answer depends on the visitor: never cacheable, and each GET is a visit of the link.
  const res = await visit(k, 'lang', { 'accept-language': 'de' });
  t.is(res.status, 302);
  t.is(res.headers.get('cache-control'), 'no-store');
  await k.flushVisits();
  const stats = await json<{ visits: { humans: number } }>(await k.get('/api/v1/links/lang/stats'));
  t.is(stats.visits.humans, 4);
});

test('a rule’s target keeps the link’s own redirect status and query forwarding', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: PLAIN, alias: 'opts', redirectStatus: 307, forwardQuery: true })).status, 201);
  t.is(
    (
      await k.request('PUT', '/api/v1/links/opts/rules', {
        rules: [{ conditions: [{ type: 'any-value-query-param', matchKey: 'go' }], target: 'https://example.com/go#top' }],
      })
    ).status,
    200,
  );
  const res = await visit(k, 'opts?go=1');
  t.is(res.status, 307);
  t.is(res.headers.get('location'), 'https://example.com/go?go=1#top');
  const plain = await visit(k, 'opts?x=1');
  t.is(plain.status, 307);
  t.is(plain.headers.get('location'), `${PLAIN}?x=1`);
});

test('a refusal rule answers 451 (a page, problem+json) or 403, uncached, never the target, and counts no visit', async (t) => {
  const k = await startKurz(t);
  await linkWith(k, 'region', [
    { conditions: [{ type: 'query-param', matchKey: 'who', matchValue: 'blocked' }], refuse: 403 },
    { conditions: [{ type: 'ip-address', matchValue: '127.0.0.1' }], refuse: 451 },
  ]);
  for (let i = 0; i < 2; i++) {
    const page = await visit(k, 'region');
    t.is(page.status, 451);
    t.is(page.headers.get('location'), null);
    t.is(page.headers.get('cache-control'), 'no-store');
    t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await page.text();
    t.regex(html, /<h1>Not available in your region<\/h1>/);
    t.regex(html, /The link <strong class="mono">\/region<\/strong> is not available in your region\./);
    t.false(html.includes(PLAIN), 'the page never names the target');
    t.false(/<script>/.test(html), 'no inline script');
  }
  const problem = await visit(k, 'region', { accept: 'application/json' });
  t.is(problem.status, 451);
  t.regex(problem.headers.get('content-type') ?? '', /application\/problem\+json/);
  t.like(await json(problem), { status: 451, code: 'forbidden', detail: 'the link "region" is not available in your region' });
  const forbidden = await visit(k, 'region?who=blocked', { accept: 'application/json' });
  t.is(forbidden.status, 403);
  t.like(await json(forbidden), { detail: 'the link "region" is not available to you' });
  const forbiddenPage = await visit(k, 'region?who=blocked');
  const forbiddenHtml = await forbiddenPage.text();
  t.regex(forbiddenHtml, /<h1>Not available<\/h1>/);
  t.regex(forbiddenHtml, /The link <strong class="mono">\/region<\/strong> is not available to you\./);
  await k.flushVisits();
  t.like(await json(await k.get('/api/v1/links/region/stats')), { visits: { total: 0 } });
});

test('an ordinary link is unchanged (cached); clearing the rules brings the plain, cached redirect back at once', async (t) => {
  const k = await startKurz(t);
  t.is((await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ordinary' })).status, 201);
  const ordinary = await visit(k, 'ordinary', { 'accept-language': 'de' });
  t.is(ordinary.headers.get('location'), PLAIN);
  t.is(ordinary.headers.get('cache-control'), 'private, max-age=90');

  await linkWith(k, 'toggled', [{ conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' }]);
  // Twice, so that the cache holds the link with its rules.
  for (let i = 0; i < 2; i++) t.is(await where(visit(k, 'toggled', { 'accept-language': 'de' })), 'https://example.de/');
  t.is((await k.request('PUT', '/api/v1/links/toggled/rules', { rules: [] })).status, 200);
  const plain = await visit(k, 'toggled', { 'accept-language': 'de' });
  t.is(plain.headers.get('location'), PLAIN);
  t.is(plain.headers.get('cache-control'), 'private, max-age=90');
  // And set again: the cached plain link is dropped too.
  await k.request('PUT', '/api/v1/links/toggled/rules', { rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], refuse: 403 }] });
  t.is((await visit(k, 'toggled', { 'accept-language': 'de' })).status, 403);
});

test('a rule change goes through the change log, so that every process drops the link', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'logged' });
  const [{ seq: before } = { seq: 0 }] = await k.sql<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM link_changes');
  await k.request('PUT', '/api/v1/links/logged/rules', { rules: [{ conditions: [{ type: 'language', matchValue: 'de' }], refuse: 403 }] });
  const changes = await k.sql<{ code: string }>('SELECT code FROM link_changes WHERE seq > ' + String(Number(before)));
  t.deepEqual(
    changes.map((c) => c.code),
    ['logged'],
  );
});

test('rules that cannot be read fail closed to the link’s own target, with an error in the log', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'broken' });
  await k.sql("UPDATE links SET rules = '{not json' WHERE code = 'broken'");
  const res = await visit(k, 'broken', { 'accept-language': 'de' });
  t.is(res.status, 302);
  t.is(res.headers.get('location'), PLAIN);
  t.true(
    k.log.lines.some((line) => line.includes('rules that cannot be read')),
    k.log.lines.join('\n'),
  );
});

test('the stats count each person’s visit under the rule that decided it, by its conditions in words, whatever the rules’ order', async (t) => {
  const k = await startKurz(t);
  const german = { conditions: [{ type: 'language', matchValue: 'de' }], target: 'https://example.de/' };
  const iphone = {
    conditions: [
      { type: 'device', matchValue: 'mobile' },
      { type: 'os', matchValue: 'ios' },
    ],
    target: 'https://apps.apple.com/app/kurz',
  };
  await linkWith(k, 'ruled', [german, iphone]);
  for (let i = 0; i < 3; i++) await where(visit(k, 'ruled', { 'accept-language': 'de' }));
  for (let i = 0; i < 2; i++) await where(visit(k, 'ruled', { 'user-agent': UA.iphoneSafari }));
  await where(visit(k, 'ruled'));
  // A bot follows the German rule, but the breakdown is of people, as every other one.
  await where(visit(k, 'ruled', { 'accept-language': 'de', 'user-agent': UA.googlebot }));
  await k.flushVisits();
  type Stats = { visits: { humans: number }; rules: Array<{ name: string; count: number }> };
  const stats = await json<Stats>(await k.get('/api/v1/links/ruled/stats'));
  t.is(stats.visits.humans, 6);
  t.deepEqual(stats.rules, [
    { name: 'language is de', count: 3 },
    { name: 'device is mobile and operating system is ios', count: 2 },
    { name: 'no rule matched', count: 1 },
  ]);

  // Reordered, the rules keep their names: later visits add to the same entries.
  t.is((await k.request('PUT', '/api/v1/links/ruled/rules', { rules: [iphone, german] })).status, 200);
  await where(visit(k, 'ruled', { 'user-agent': UA.iphoneSafari, 'accept-language': 'de' }));
  await k.flushVisits();
  const after = await json<Stats>(await k.get('/api/v1/links/ruled/stats'));
  t.deepEqual(after.rules, [
    { name: 'device is mobile and operating system is ios', count: 3 },
    { name: 'language is de', count: 3 },
    { name: 'no rule matched', count: 1 },
  ]);

  const b = await browser(k);
  const page = await (await b.get('/links/ruled/stats')).text();
  t.regex(page, /<h2 id="rules-heading">Redirect rules<\/h2>/);
  const table = /<div class="top-table" id="top-rules">[\s\S]*?<\/table>/.exec(page)?.[0] ?? '';
  t.regex(table, /<caption>Visits by redirect rule<\/caption>/);
  t.deepEqual(
    [
      ...table.matchAll(/<th scope="row">([^<]*)<svg class="share-bar"[\s\S]*?<td class="num">(\d+)<\/td><td class="num">(\d+%)<\/td>/g),
    ].map((m) => [m[1], m[2], m[3]]),
    [
      ['device is mobile and operating system is ios', '3', '43%'],
      ['language is de', '3', '43%'],
      ['no rule matched', '1', '14%'],
    ],
  );
  const csv = await (await b.get('/links/ruled/stats.csv')).text();
  t.true(csv.includes('rules,language is de,visits,3'), csv);

  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'plain' });
  await where(visit(k, 'plain'));
  await k.flushVisits();
  t.deepEqual((await json<Stats>(await k.get('/api/v1/links/plain/stats'))).rules, [], 'a link without rules: none');
  t.false((await (await b.get('/links/plain/stats')).text()).includes('rules-heading'), 'and no rules table');
});
