import test from 'ava';
import { BROWSER_ACCEPT, startKurz, type TestKurz } from '../helpers.ts';
import { member } from './members.ts';
import { browser } from './ui-session.ts';

// The rule editor on the link page (issue 26), without JavaScript: each button a form post to
// /links/CODE/rules answered by a redirect back to the list, a refused rule the page again with status 400.

const PLAIN = 'https://example.com/plain';

async function rulesOf(k: TestKurz, code: string): Promise<unknown[]> {
  return ((await (await k.get(`/api/v1/links/${code}/rules`)).json()) as { rules: unknown[] }).rules;
}

const lang = (value: string, target: string) => ({ conditions: [{ type: 'language', matchKey: null, matchValue: value }], target });

/** The text of the rules' lines as the page lists them, tags stripped. */
function lines(html: string): string[] {
  return [...html.matchAll(/<p class="rule-line">([\s\S]*?)<\/p>/g)].map((m) =>
    m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

test('the link page lists no rules at first and offers the form, whose actions offer the split and the pages', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ruled' });
  const { res, html } = await b.page('/links/ruled');
  t.is(res.status, 200);
  t.regex(html, /<h2 id="rules">Redirect rules<\/h2>/);
  t.true(
    html.indexOf('id="rules"') > html.indexOf('id="details"') && html.indexOf('id="rules"') < html.indexOf('id="history"'),
    'between Details and History',
  );
  t.regex(html, /id="no-rules"/);
  t.regex(
    html,
    /<form method="post" action="\/links\/ruled\/rules"[^>]*>\s*<input type="hidden" name="_csrf" value="[^"]+">\s*<input type="hidden" name="op" value="add">/,
  );
  t.regex(html, /<option value="geolocation-country-code">country<\/option>/);
  t.regex(
    html,
    /<datalist id="rule-values">[\s\S]*<option value="mobile" label="device"><\/option>[\s\S]*<option value="CN" label="country"><\/option>/,
  );
  // A split is offered with its variant rows; a page, not served yet, is not.
  t.regex(html, /<option value="split">A\/B split: the variants below<\/option>/);
  t.regex(html, /name="split_url1"[\s\S]*name="split_weight3"/);
  t.notRegex(html, /value="(page|open-in-browser)"/);
  t.regex(html, /<option value="page-notice">Show the notice first<\/option>/);
  t.regex(html, /<option value="">\(every visitor\)<\/option>/);
});

test('add, move and remove: each a post answered 303 to the list, each through setRules', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ruled' });
  const add = await b.submit('/links/ruled/rules', {
    op: 'add',
    type1: 'language',
    value1: 'de',
    type2: 'device',
    value2: 'mobile',
    key1: 'ignored for language',
    action: 'target',
    target: 'https://example.de/seite',
  });
  t.is(add.status, 303);
  t.is(add.headers.get('location'), '/links/ruled#rules');
  const refuse = await b.submit('/links/ruled/rules', {
    op: 'add',
    type1: 'geolocation-country-code',
    value1: 'cn',
    type2: '',
    action: '451',
  });
  t.is(refuse.status, 303);
  const query = await b.submit('/links/ruled/rules', {
    op: 'add',
    type1: 'any-value-query-param',
    key1: 'promo',
    value1: 'not taken',
    action: '403',
  });
  t.is(query.status, 303);
  const first = {
    conditions: [
      { type: 'language', matchKey: null, matchValue: 'de' },
      { type: 'device', matchKey: null, matchValue: 'mobile' },
    ],
    target: 'https://example.de/seite',
  };
  const second = { conditions: [{ type: 'geolocation-country-code', matchKey: null, matchValue: 'cn' }], refuse: 451 };
  const third = { conditions: [{ type: 'any-value-query-param', matchKey: 'promo', matchValue: null }], refuse: 403 };
  t.deepEqual(await rulesOf(k, 'ruled'), [first, second, third]);
  // The line writes the country as the redirect reads it, whatever case it was typed in.
  t.deepEqual(lines((await b.page('/links/ruled')).html), [
    'if language is de and device is mobile → https://example.de/seite',
    'if country is CN → refuse 451',
    'if query parameter promo is present → refuse 403',
  ]);
  // The redirect follows at once.
  const de = await fetch(`${k.base}/ruled`, {
    headers: { 'accept-language': 'de-DE', 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' },
    redirect: 'manual',
  });
  t.is(de.headers.get('location'), 'https://example.de/seite');

  t.is((await b.submit('/links/ruled/rules', { op: 'down', index: '0' })).status, 303);
  t.deepEqual(await rulesOf(k, 'ruled'), [second, first, third]);
  t.is((await b.submit('/links/ruled/rules', { op: 'up', index: '2' })).status, 303);
  t.deepEqual(await rulesOf(k, 'ruled'), [second, third, first]);
  t.is((await b.submit('/links/ruled/rules', { op: 'up', index: '0' })).status, 303, 'the first rule going up stays first');
  t.deepEqual(await rulesOf(k, 'ruled'), [second, third, first]);
  t.is((await b.submit('/links/ruled/rules', { op: 'remove', index: '1' })).status, 303);
  t.deepEqual(await rulesOf(k, 'ruled'), [second, first]);

  const gone = await b.submit('/links/ruled/rules', { op: 'remove', index: '5' });
  t.is(gone.status, 400);
  t.regex(await gone.text(), /id="rules-error">there is no rule 6 \(the list may have changed: reload the page\)/);
  t.deepEqual(await rulesOf(k, 'ruled'), [second, first]);
});

test('a refused rule shows the page again with 400, the message beside its field and the values as typed; nothing is stored', async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'ruled' });
  await k.request('PUT', '/api/v1/links/ruled/rules', { rules: [lang('de', 'https://example.de/')] });
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ type1: 'ip-address', value1: '10.0.0.0/33' }, 'value1', /Value "10\.0\.0\.0\/33" is not a CIDR range or IP address/],
    [
      { type1: 'geolocation-country-code', value1: 'XX' },
      'value1',
      /Value unknown country code XX \(an ISO 3166-1 alpha-2 code such as DE\)/,
    ],
    [
      { type1: 'language', value1: 'de', type2: 'query-param', value2: 'x' },
      'key2',
      /Query parameter must name the query parameter \(query-param\)/,
    ],
    [{ type1: 'device', value1: '' }, 'value1', /Value is required for device/],
    [{ type1: 'language', value1: 'fr', target: 'ftp://example.com/' }, 'target', /^Target URL must use http or https, not ftp$/],
  ];
  for (const [fields, field, message] of cases) {
    const res = await b.submit('/links/ruled/rules', { op: 'add', action: 'target', target: 'https://example.fr/', ...fields });
    t.is(res.status, 400, field);
    const html = await res.text();
    const shown = new RegExp(`<p class="field-error" id="${field}-error" role="alert">([^<]*)</p>`).exec(html)?.[1] ?? '';
    t.regex(shown.replaceAll('&quot;', '"'), message, field);
    t.regex(html, new RegExp(`id="${field}" name="${field}"[^>]*aria-invalid="true"`), field);
    for (const [name, value] of Object.entries(fields)) {
      if (name.startsWith('type') && value !== '') t.regex(html, new RegExp(`<option value="${value}" selected>`), `${name} kept`);
      if (!name.startsWith('type') && value !== '') t.true(html.includes(`name="${name}" value="${value}"`), `${name} kept`);
    }
    t.deepEqual(lines(html), ['if language is de → https://example.de/'], 'the list as stored');
  }
  const script = await b.submit('/links/ruled/rules', {
    op: 'add',
    type1: 'geolocation-city-name',
    value1: '<script>x</script>',
    action: '451',
  });
  t.is(script.status, 303, 'any city name is taken');
  t.deepEqual(lines((await b.page('/links/ruled')).html)[1], 'if city is &lt;script&gt;x&lt;/script&gt; → refuse 451');
  t.deepEqual((await rulesOf(k, 'ruled')).length, 2);
});

test("a member cannot post to another's link (404), and a post without the CSRF token is refused (403)", async (t) => {
  const k = await startKurz(t);
  const b = await browser(k);
  await k.postJson('/api/v1/links', { url: PLAIN, alias: 'admins' });
  const alice = await member(k, 'alice');
  const fields = { op: 'add', type1: 'language', value1: 'de', action: '451' };
  t.is((await alice.page('/links/admins/rules', fields)).status, 404);
  t.is((await alice.page('/links/admins/rules', { op: 'remove', index: '0' })).status, 404);
  const own = await alice.api('POST', '/api/v1/links', { url: PLAIN, alias: 'alices' });
  t.is(own.status, 201);
  t.is((await alice.page('/links/alices/rules', fields)).status, 303, 'her own link she may');
  t.is((await b.post('/links/admins/rules', fields)).status, 403, 'no token');
  t.is((await b.post('/links/admins/rules', { ...fields, _csrf: 'forged' })).status, 403, 'a wrong token');
  const stranger = await fetch(`${k.base}/links/admins/rules`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  t.is(stranger.status, 401, 'logged out');
  t.deepEqual(await rulesOf(k, 'admins'), []);
  t.is((await rulesOf(k, 'alices')).length, 1);
});
