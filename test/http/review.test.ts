import test from 'ava';
import { BROWSER_ACCEPT, BROWSER_UA, cookiesOf, csrfOf, startKurz, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';
import { member } from './members.ts';

// The review queue (reviewNewLinks): a held link answers "being reviewed" until an admin approves it (then
// it redirects) or rejects it (then 410 for good, its code retired), through the API, the pages and the
// redirect, on the backend of the run.

/** A visitor's GET of a short link: a browser (a page) or a program (JSON). */
function visit(k: TestKurz, code: string, accept = BROWSER_ACCEPT): Promise<Response> {
  return fetch(`${k.base}/${code}`, { headers: { accept, 'user-agent': BROWSER_UA }, redirect: 'manual' });
}

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

test('reviewNewLinks is off by default: a member’s link redirects at once and says review null', async (t) => {
  const k = await startKurz(t);
  const alice = await member(k, 'alice');
  const res = await alice.api('POST', '/api/v1/links', { url: 'https://example.com/free', alias: 'free' });
  t.is(res.status, 201);
  t.like(await json(res), { review: null });
  t.is((await visit(k, 'free')).headers.get('location'), 'https://example.com/free');
});

test('a member’s link waits: "being reviewed", never its target nor a cached answer, until an admin approves it', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const alice = await member(k, 'alice');
  const created = await alice.api('POST', '/api/v1/links', { url: 'https://example.com/held', alias: 'held' });
  t.is(created.status, 201);
  t.like(await json(created), { code: 'held', owner: 'alice', review: 'pending' });
  // Twice: the second answer comes from the redirect cache (a link is kept from its first lookup while there is room).
  for (let i = 0; i < 2; i++) {
    const page = await visit(k, 'held');
    t.is(page.status, 403);
    t.is(page.headers.get('location'), null);
    t.is(page.headers.get('cache-control'), 'no-store');
    const html = await page.text();
    t.regex(html, /This link is being reviewed/);
    t.false(html.includes('example.com/held'), 'the page never names the target');
  }
  const problem = await visit(k, 'held', 'application/json');
  t.is(problem.status, 403);
  t.like(await json(problem), { code: 'forbidden', detail: 'the link "held" is being reviewed: it leads on once an admin approves it' });
  const head = await fetch(`${k.base}/held`, { method: 'HEAD', redirect: 'manual' });
  t.is(head.status, 403);
  t.is(head.headers.get('location'), null);

  // The admin's own links never wait.
  const own = await k.postJson('/api/v1/links', { url: 'https://example.com/admins', alias: 'admins' });
  t.like(await json(own), { review: null });
  t.is((await visit(k, 'admins')).status, 302);

  const approved = await k.postJson('/api/v1/links/held/approve', {});
  t.is(approved.status, 200);
  t.like(await json(approved), { code: 'held', review: null });
  // The cached "being reviewed" is gone at once.
  const after = await visit(k, 'held');
  t.is(after.status, 302);
  t.is(after.headers.get('location'), 'https://example.com/held');
  const [entry] = (await json<{ entries: Array<{ action: string; actorName: string }> }>(await k.get('/api/v1/links/held/audit'))).entries;
  t.like(entry, { action: 'link.approve', actorName: 'admin' });
});

test('a rejected link answers 410 for good: its code is retired, not re-creatable, and no member edit brings it back', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const alice = await member(k, 'alice');
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/spam', alias: 'spam' });
  await visit(k, 'spam');
  await visit(k, 'spam');
  const rejected = await k.postJson('/api/v1/links/spam/reject', {});
  t.is(rejected.status, 200);
  t.like(await json(rejected), { review: 'rejected' });
  const gone = await visit(k, 'spam', 'application/json');
  t.is(gone.status, 410);
  t.like(await json(gone), { code: 'gone', detail: 'the link "spam" was rejected by an admin; its code is not reused' });

  // Neither the owner nor anyone else gets the code again.
  const again = await alice.api('POST', '/api/v1/links', { url: 'https://example.com/other', alias: 'spam' });
  t.is(again.status, 409);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/other', alias: 'spam' })).status, 409);
  // The owner's edits (turning it on, a new target) leave it rejected.
  const edited = await alice.api('PATCH', '/api/v1/links/spam', { enabled: true, url: 'https://example.com/innocent' });
  t.is(edited.status, 200);
  t.like(await json(edited), { review: 'rejected' });
  t.is((await visit(k, 'spam')).status, 410);
  // A verdict is given once.
  const twice = await k.postJson('/api/v1/links/spam/approve', {});
  t.is(twice.status, 409);
  t.like(await json(twice), { detail: 'the link "spam" was rejected already; a rejected link stays retired' });
  t.is((await k.postJson('/api/v1/links/spam/reject', {})).status, 409);
  const { entries } = await json<{ entries: Array<{ action: string; actorName: string }> }>(await k.get('/api/v1/links/spam/audit'));
  t.deepEqual(
    entries.filter((e) => e.action === 'link.reject' || e.action === 'link.approve').map((e) => `${e.actorName} ${e.action}`),
    ['admin link.reject'],
  );
});

test('approve and reject: precise answers for members, unknown codes, other states and deleted links', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const [alice, bob] = [await member(k, 'alice'), await member(k, 'bob')];
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/a', alias: 'alices' });
  // A member cannot approve their own link (403), and another's is not found (404), as everywhere.
  const own = await alice.api('POST', '/api/v1/links/alices/approve');
  t.is(own.status, 403);
  t.like(await json(own), { code: 'forbidden' });
  t.is((await bob.api('POST', '/api/v1/links/alices/approve')).status, 404);
  t.is((await bob.api('POST', '/api/v1/links/alices/reject')).status, 404);
  t.like(await json(await alice.api('GET', '/api/v1/links/alices')), { review: 'pending' });

  t.is((await k.postJson('/api/v1/links/nosuch/approve', {})).status, 404);
  t.is((await k.postJson('/api/v1/links/no%20code/approve', {})).status, 404);
  await k.postJson('/api/v1/links', { url: 'https://example.com/live', alias: 'live' });
  const live = await k.postJson('/api/v1/links/live/approve', {});
  t.is(live.status, 409);
  t.like(await json(live), { code: 'conflict', detail: 'the link "live" is not waiting for review' });
  t.is((await k.postJson('/api/v1/links/alices/approve', {})).status, 200);
  t.is((await k.postJson('/api/v1/links/alices/approve', {})).status, 409, 'approving an approved link');
  await bob.api('POST', '/api/v1/links', { url: 'https://example.com/b', alias: 'bobs' });
  t.is((await bob.api('DELETE', '/api/v1/links/bobs')).status, 204);
  t.is((await k.postJson('/api/v1/links/bobs/reject', {})).status, 410);
  // A key without links:write is refused before anything is looked up.
  const reader = (await k.kurz.services.access.createKey(1, 'reader', { scopes: ['links:read'] })).secret;
  const scoped = await fetch(`${k.base}/api/v1/links/alices/reject`, { method: 'POST', headers: { authorization: `Bearer ${reader}` } });
  t.is(scoped.status, 403);
});

test('a new target from a member waits for review again; the list filters links in review, a member’s own alone', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const [alice, bob] = [await member(k, 'alice'), await member(k, 'bob')];
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/1', alias: 'one' });
  await bob.api('POST', '/api/v1/links', { url: 'https://example.com/2', alias: 'two' });
  await k.postJson('/api/v1/links', { url: 'https://example.com/3', alias: 'three' });
  t.is((await k.postJson('/api/v1/links/one/approve', {})).status, 200);
  t.is((await visit(k, 'one')).status, 302);
  // A title is no new target; a URL is.
  t.like(await json(await alice.api('PATCH', '/api/v1/links/one', { title: 'Mine' })), { review: null });
  t.like(await json(await alice.api('PATCH', '/api/v1/links/one', { url: 'https://example.com/changed' })), { review: 'pending' });
  t.is((await visit(k, 'one')).status, 403);
  // An admin's edit of a target is no new review.
  t.like(await json(await k.request('PATCH', '/api/v1/links/three', { url: 'https://example.com/3b' })), { review: null });

  const codes = async (res: Response) => (await json<{ links: Array<{ code: string }> }>(res)).links.map((l) => l.code).sort();
  t.deepEqual(await codes(await k.get('/api/v1/links?review=pending')), ['one', 'two']);
  t.deepEqual(await codes(await alice.api('GET', '/api/v1/links?review=pending')), ['one']);
  t.deepEqual(await codes(await k.get('/api/v1/links?review=rejected')), []);
  const bad = await k.get('/api/v1/links?review=maybe');
  t.is(bad.status, 400);
  t.like(await json(bad), { field: 'review' });
  t.is(await k.kurz.services.review.pendingCount(), 2);
});

test('reviewNewLinks anonymous holds the links shortened on / without an account, not a member’s; the admin’s dedupe skips them', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'anonymous', anonymousShortening: true });
  const alice = await member(k, 'alice');
  t.like(await json(await alice.api('POST', '/api/v1/links', { url: 'https://example.com/m', alias: 'm' })), { review: null });
  const home = await fetch(`${k.base}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
  const cookie = cookiesOf(home);
  const posted = await fetch(`${k.base}/`, {
    method: 'POST',
    headers: { accept: BROWSER_ACCEPT, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrfOf(await home.text()), url: 'https://example.com/anon' }),
    redirect: 'manual',
  });
  t.is(posted.status, 200);
  const [held] = (await json<{ links: Array<{ code: string; review: string }> }>(await k.get('/api/v1/links?review=pending'))).links;
  t.truthy(held);
  t.is((await visit(k, held!.code)).status, 403);
  // Anonymous links belong to the first admin; the admin shortening the same URL gets a live link, not the held one.
  const mine = await json<{ code: string; review: string | null }>(await k.postJson('/api/v1/links', { url: 'https://example.com/anon' }));
  t.not(mine.code, held!.code);
  t.is(mine.review, null);
});

test('the review page: the admin’s queue with target, creator and the blocklists’ word, approve and reject by form; members get 403', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const alice = await member(k, 'alice');
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/first', alias: 'first', title: 'First one' });
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/second', alias: 'second' });
  const admin = await browser(k);

  const dashboard = await admin.page('/');
  t.regex(dashboard.html, /<a href="\/review">Review <span class="count" id="review-count"[^>]*>2</);
  t.regex(dashboard.html, /id="review-waiting"><a href="\/review">2 links wait for review<\/a>/);
  const { res, html } = await admin.page('/review');
  t.is(res.status, 200);
  t.regex(html, /2 links wait/);
  t.regex(html, /https:\/\/example\.com\/first/);
  t.regex(html, /First one/);
  t.regex(html, /<td data-label="Creator"><span>alice<\/span>/);
  t.regex(html, /no blocklist set/);

  const approved = await admin.submit('/review/first/approve', {});
  t.is(approved.status, 303);
  t.is(approved.headers.get('location'), '/review?approved=first');
  t.regex((await admin.page('/review?approved=first')).html, /Link <span class="mono">first<\/span> is approved/);
  t.is((await visit(k, 'first')).status, 302);
  const rejected = await admin.submit('/review/second/reject', {});
  t.is(rejected.headers.get('location'), '/review?rejected=second');
  t.is((await visit(k, 'second')).status, 410);
  t.regex((await admin.page('/review')).html, /No link is waiting for review/);
  // Deciding twice by form is a precise 409, not a 500; without the CSRF token, a 403.
  t.is((await admin.submit('/review/second/approve', {})).status, 409);
  t.is((await admin.post('/review/second/approve', {})).status, 403);

  // The member sees their own link's state, not the queue.
  t.is((await alice.page('/review')).status, 403);
  const own = await (await alice.page('/links/second')).text();
  t.regex(own, /rejected/);
  t.notRegex(own, /action="\/review\//);
  t.regex(await (await alice.page('/links?review=rejected')).text(), /href="\/links\/second"/);
});

test('a member sees their waiting link as in review on the list and its page, with no verdict buttons', async (t) => {
  const k = await startKurz(t, { reviewNewLinks: 'members' });
  const alice = await member(k, 'alice');
  await alice.api('POST', '/api/v1/links', { url: 'https://example.com/w', alias: 'waits' });
  const list = await (await alice.page('/links')).text();
  t.regex(list, /<span class="state state-review">in review<\/span>/);
  const page = await (await alice.page('/links/waits')).text();
  t.regex(page, /id="review-notice">This link waits for an admin's review/);
  t.notRegex(page, /Approve/);
  t.notRegex(page, /href="\/review"/, 'no queue in a member’s nav');
  const admin = await browser(k);
  const seen = await admin.page('/links/waits');
  t.regex(seen.html, /action="\/review\/waits\/approve"/);
});
