import test from 'ava';
import { AppError } from '../../src/core/errors.ts';
import {
  checkAnswers,
  looksLikeDownload,
  missingPage,
  opensInBrowser,
  parsePages,
  storedPages,
  pagesFromStored,
  NO_PAGES,
} from '../../src/rules/page-settings.ts';
import { checkPass, newPass, textsFor } from '../../src/edge/pages.ts';

// A link's pages before the redirect, pure: their settings, the download test of openInBrowser auto, a form's
// answers, the pass and the open-in-browser page's language.

const DOWNLOADS: Array<[string, boolean]> = [
  ['https://apps.apple.com/de/app/kurz/id1234567890', true],
  ['https://play.google.com/store/apps/details?id=org.example.app', true],
  ['https://testflight.apple.com/join/AbCdEf', true],
  ['https://appgallery.huawei.com/app/C100000000', true],
  ['https://www.amazon.com/gp/mas/dl/android?p=org.example', true],
  ['https://example.com/files/App-1.2.apk', true],
  ['https://example.com/setup.EXE?v=2', true],
  ['https://example.com/report.pdf#page=2', true],
  ['https://cdn.example.com/a/b/c.tar.gz', true],
  ['https://example.com/', false],
  ['https://example.com/apk', false],
  ['https://example.com/page.html', false],
  ['https://apple.com/app', false],
  ['https://notplay.google.com.evil.example/store', false],
  ['https://www.amazon.com/dp/B000', false],
  ['not a url', false],
];
for (const [url, expected] of DOWNLOADS) test(`looksLikeDownload(${url}) is ${expected}`, (t) => t.is(looksLikeDownload(url), expected));

test('openInBrowser: on always, off never, auto for a download', (t) => {
  const url = 'https://example.com/';
  t.true(opensInBrowser({ ...NO_PAGES, openInBrowser: 'on' }, url));
  t.false(opensInBrowser({ ...NO_PAGES, openInBrowser: 'off' }, 'https://example.com/a.apk'));
  t.true(opensInBrowser(NO_PAGES, 'https://example.com/a.apk'));
  t.false(opensInBrowser(NO_PAGES, url));
});

test('parsePages: defaults, trimming, and a stored text that reads back the same', (t) => {
  t.deepEqual(parsePages(null), NO_PAGES);
  t.deepEqual(parsePages({}), NO_PAGES);
  t.is(storedPages(parsePages({})), null, 'the defaults are stored as NULL');
  const pages = parsePages({
    notice: { title: '  ', message: ' Hi\nthere ', button: 'Go' },
    form: { fields: [{ type: 'email', required: true }] },
  });
  t.deepEqual(pages.notice, { title: null, message: 'Hi\nthere', button: 'Go' });
  t.deepEqual(pages.form, { fields: [{ type: 'email', required: true, label: null }], consent: null });
  t.deepEqual(
    pagesFromStored(storedPages(pages), () => t.fail()),
    pages,
  );
  let problem = '';
  t.deepEqual(
    pagesFromStored('{"notice": 3}', (p) => (problem = p)),
    NO_PAGES,
    'unreadable text: no pages',
  );
  t.regex(problem, /pages\.notice/);
});

test('parsePages refuses, naming the field', (t) => {
  const cases: Array<[unknown, string]> = [
    ['notice', 'pages'],
    [{ notice: { message: '', button: 'Go' } }, 'pages.notice.message'],
    [{ notice: { message: '   ', button: 'Go' } }, 'pages.notice.message'],
    [{ notice: { message: 'a\u0000b', button: 'Go' } }, 'pages.notice.message'],
    [{ notice: { message: 'x'.repeat(2001), button: 'Go' } }, 'pages.notice.message'],
    [{ form: { fields: [] } }, 'pages.form.fields'],
    [{ form: { fields: [{ type: 'name', required: 'yes' }] } }, 'pages.form.fields[0].required'],
    [{ form: { fields: [{ type: 'text', label: 'l'.repeat(61) }] } }, 'pages.form.fields[0].label'],
    [{ openInBrowser: true }, 'pages.openInBrowser'],
  ];
  for (const [input, field] of cases) {
    const err = t.throws(() => parsePages(input), { instanceOf: AppError }, JSON.stringify(input));
    t.is(err?.field, field, err?.message);
  }
});

test('missingPage names the first notice or form rule whose page is not set', (t) => {
  const rules = [
    { conditions: [], action: { kind: 'page', page: 'open-in-browser' } },
    { conditions: [], action: { kind: 'page', page: 'form' } },
  ] as const;
  t.deepEqual(missingPage(rules, NO_PAGES), { field: 'rules[1].page', page: 'form' });
  t.is(missingPage(rules, parsePages({ form: { fields: [{ type: 'name' }] } })), undefined);
});

test('checkAnswers: required, e-mail and phone shapes, the consent box; an oversized answer throws', (t) => {
  const form = parsePages({
    form: {
      fields: [{ type: 'name', required: true }, { type: 'email' }, { type: 'phone' }, { type: 'text', label: 'Company' }],
      consent: 'I agree',
    },
  }).form!;
  const bad = checkAnswers(form, { name: ' ', email: 'x@y', phone: 'call me' });
  t.deepEqual(Object.keys(bad.problems).sort(), ['consent', 'email', 'name', 'phone']);
  const good = checkAnswers(form, { name: ' Ana ', email: 'ana@example.org', phone: '+49 (30) 123-456', consent: 'yes' });
  t.deepEqual(good.problems, {});
  t.deepEqual(good.answers, { values: { name: 'Ana', email: 'ana@example.org', phone: '+49 (30) 123-456', text: '' }, consent: true });
  t.throws(() => checkAnswers(form, { name: 'a'.repeat(201) }), { instanceOf: AppError, message: /name is longer than 200/ });
  t.throws(() => checkAnswers(form, { name: ['a', 'b'] }), { instanceOf: AppError, message: /name must be text/ });
});

test('a pass is good for its link and query until it expires, carries whether the password was given; anything else is forged', (t) => {
  const access = { pageToken: (v: string) => `sig(${v})`, checkPageToken: (v: string, token: unknown) => token === `sig(${v})` };
  const pass = newPass(access, 7, 'a=1', 1000);
  const forged = { verdict: 'forged', unlocked: false };
  t.deepEqual(checkPass(access, 7, 'a=1', pass, 1001), { verdict: 'ok', unlocked: false });
  t.deepEqual(checkPass(access, 7, 'a=1', pass, 1000 + 60 * 60 * 1000), { verdict: 'expired', unlocked: false });
  t.deepEqual(checkPass(access, 8, 'a=1', pass, 1001), forged);
  t.deepEqual(checkPass(access, 7, 'a=2', pass, 1001), forged);
  t.deepEqual(checkPass(access, 7, 'a=1', pass.replace(/^\d+/, '99999999999999'), 1001), forged, 'a later expiry is not signed');
  t.deepEqual(checkPass(access, 7, 'a=1', undefined, 1001), forged);
  t.deepEqual(checkPass(access, 7, 'a=1', 'x'.repeat(201), 1001), forged);
  const unlocked = newPass(access, 7, 'a=1', 1000, true);
  t.deepEqual(checkPass(access, 7, 'a=1', unlocked, 1001), { verdict: 'ok', unlocked: true });
  t.deepEqual(checkPass(access, 7, 'a=1', pass.replace('.', 'u.'), 1001), forged, 'a pass given before the password cannot claim it');
  t.deepEqual(checkPass(access, 7, 'a=1', unlocked.replace('u.', '.'), 1001), forged);
});

test('the open-in-browser page speaks the first of the visitor’s languages kurz has, English otherwise', (t) => {
  const cases: Array<[string, string]> = [
    ['de-AT,de;q=0.9', 'de'],
    ['fr-CA', 'fr'],
    ['es-419,es;q=0.9', 'es'],
    ['pt-BR', 'pt'],
    ['zh-Hant-TW,zh;q=0.9', 'zh'],
    ['ja', 'ja'],
    ['ko,ja;q=0.5', 'ja'],
    ['ko', 'en'],
    ['', 'en'],
  ];
  for (const [header, lang] of cases) t.is(textsFor(header).lang, lang, header);
});
