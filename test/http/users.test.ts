import test, { type ExecutionContext } from 'ava';
import { BROWSER_ACCEPT, BROWSER_UA, cookiesOf, csrfOf, loginAs, startKurz } from '../helpers.ts';
import { member, MEMBER_PASSWORD as PASSWORD, type Member } from './members.ts';

// Several users on one kurz, through every route: two members (alice, bob) and the admin. A member reaches
// only their own links; another's is not found (404, never 403), so codes do not leak.

async function create(m: Member, body: Record<string, unknown>): Promise<{ code: string; owner: string; created: boolean }> {
  const res = await m.api('POST', '/api/v1/links', body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`${m.name} creating: ${res.status} ${await res.text()}`);
  return { ...((await res.json()) as { code: string; owner: string }), created: res.status === 201 };
}

async function three(t: ExecutionContext) {
  const k = await startKurz(t);
  const [alice, bob] = [await member(k, 'alice'), await member(k, 'bob')];
  const mine = await create(alice, { url: 'https://example.com/alice', alias: 'alices', tags: ['private-a'] });
  const theirs = await create(bob, { url: 'https://example.com/bob', tags: ['private-b'] });
  return { k, alice, bob, mine, theirs };
}

test('a member reaches none of another member’s links through the API: 404 on every route, never 403', async (t) => {
  const { alice, bob, mine } = await three(t);
  t.is(mine.owner, 'alice');
  for (const [method, path, body] of [
    ['GET', '/api/v1/links/alices'],
    ['PATCH', '/api/v1/links/alices', { url: 'https://evil.example/' }],
    ['DELETE', '/api/v1/links/alices'],
    ['GET', '/api/v1/links/alices/qr'],
    ['GET', '/api/v1/links/alices/stats'],
  ] as const) {
    const res = await bob.api(method, path, body);
    t.is(res.status, 404, `${method} ${path}`);
    t.false((await res.text()).includes('example.com/alice'), `${method} ${path} tells nothing of the link`);
  }
  // Still whole, and still alice's.
  const own = (await (await alice.api('GET', '/api/v1/links/alices')).json()) as { url: string; owner: string; deletedAt: string | null };
  t.like(own, { url: 'https://example.com/alice', owner: 'alice', deletedAt: null });
});

test('a member’s list, tags, export and dedupe hold only their own links; the raw visits are the admins’', async (t) => {
  const { k, alice, bob, mine, theirs } = await three(t);
  const codes = async (m: Member) =>
    ((await (await m.api('GET', '/api/v1/links')).json()) as { links: Array<{ code: string }> }).links.map((l) => l.code);
  t.deepEqual(await codes(bob), [theirs.code]);
  t.deepEqual(await codes(alice), [mine.code]);
  // Naming another owner changes nothing for a member.
  const asked = (await (await bob.api('GET', '/api/v1/links?owner=alice')).json()) as { links: Array<{ code: string }> };
  t.deepEqual(
    asked.links.map((l) => l.code),
    [theirs.code],
  );
  const tags = (await (await bob.api('GET', '/api/v1/tags')).json()) as { tags: Array<{ tag: string }> };
  t.deepEqual(
    tags.tags.map((x) => x.tag),
    ['private-b'],
  );
  const exported = await (await bob.api('GET', '/api/v1/export?what=links&format=csv')).text();
  t.true(exported.includes('example.com/bob'));
  t.false(exported.includes('example.com/alice'));
  t.is((await bob.api('GET', '/api/v1/export?what=visits&format=csv')).status, 403);
  // The same URL as alice's bare link: bob gets a link of his own, never hers.
  const plain = await create(alice, { url: 'https://example.com/shared' });
  const again = await create(bob, { url: 'https://example.com/shared' });
  t.true(again.created);
  t.not(again.code, plain.code);
  t.is(again.owner, 'bob');
  t.false((await create(bob, { url: 'https://example.com/shared' })).created, 'his own is deduplicated');
  // The admin sees both, and filters by owner.
  const all = (await (await k.get('/api/v1/links')).json()) as { links: Array<{ owner: string }> };
  t.deepEqual([...new Set(all.links.map((l) => l.owner))].sort(), ['alice', 'bob']);
  const alices = (await (await k.get('/api/v1/links?owner=alice')).json()) as { links: Array<{ owner: string }> };
  t.true(alices.links.length === 2 && alices.links.every((l) => l.owner === 'alice'));
  t.is((await k.get('/api/v1/links?owner=nobody')).status, 400);
});

test('through the pages, a member sees and changes only their own links, and none of the admins’ pages', async (t) => {
  const { k, bob, mine, theirs } = await three(t);
  for (const path of [`/links/${mine.code}`, `/links/${mine.code}/stats`, `/links/${mine.code}/delete`])
    t.is((await bob.page(path)).status, 404, path);
  t.is((await bob.page(`/links/${mine.code}`, { url: 'https://evil.example/' })).status, 404);
  t.is((await bob.page(`/links/${mine.code}/state`, { enabled: 'false' })).status, 404);
  t.is((await bob.page(`/links/${mine.code}/delete`, {})).status, 404);
  const list = await (await bob.page('/links')).text();
  t.true(list.includes(theirs.code));
  t.false(list.includes(mine.code));
  const dashboard = await (await bob.page('/')).text();
  t.false(dashboard.includes(mine.code));
  t.regex(dashboard, /Last 14 days, your links/, 'his own figures, not the instance’s');
  t.false(dashboard.includes('name="owner"'), 'no choice of whose figures');
  t.false(dashboard.includes('href="/users"'), 'no Users in the nav');
  for (const path of ['/users', '/domains', '/settings']) t.is((await bob.page(path)).status, 403, path);
  const [row] = await k.sql<{ url: string; deleted_at: number | null; enabled: number }>(
    `SELECT url, deleted_at, enabled FROM links WHERE code = 'alices'`,
  );
  t.like(row, { url: 'https://example.com/alice', deleted_at: null, enabled: 1 });
});

test('users are an admin’s to manage: a member’s key or session gets 403; the admin adds, disables and enables', async (t) => {
  const { k, alice, bob } = await three(t);
  t.is((await bob.api('GET', '/api/v1/users')).status, 403);
  t.is((await bob.api('POST', '/api/v1/users', { name: 'mallory', role: 'admin' })).status, 403);
  t.is((await bob.api('PATCH', '/api/v1/users/bob', { role: 'admin' })).status, 403);
  t.is((await bob.api('POST', '/api/v1/domains', { host: 's2.kurz.test' })).status, 403, 'domains are an admin’s');
  const users = (await (await k.get('/api/v1/users')).json()) as { users: Array<{ name: string; role: string; links: number }> };
  t.deepEqual(
    users.users.map((u) => [u.name, u.role, u.links]),
    [
      ['admin', 'admin', 0],
      ['alice', 'member', 1],
      ['bob', 'member', 1],
    ],
  );
  t.is((await k.postJson('/api/v1/users', { name: 'ALICE' })).status, 409, 'names are unique whatever their case');
  t.is((await k.postJson('/api/v1/users', { name: 'x y' })).status, 400);
  t.is((await k.postJson('/api/v1/users', { name: 'carol', role: 'owner' })).status, 400);
  // Disabled: her key is refused, her session is over, and she cannot log in.
  t.like(await (await k.request('PATCH', '/api/v1/users/alice', { state: 'disabled' })).json(), { state: 'disabled' });
  t.is((await alice.api('GET', '/api/v1/links')).status, 401);
  t.is((await alice.page('/links')).status, 303, 'sent to log in');
  await t.throwsAsync(loginAs(k.base, 'alice', PASSWORD));
  t.like(await (await k.request('PATCH', '/api/v1/users/alice', { state: 'active' })).json(), { state: 'active' });
  t.is((await alice.api('GET', '/api/v1/links')).status, 200);
  // The last active admin stays one.
  t.is((await k.request('PATCH', '/api/v1/users/admin', { role: 'member' })).status, 409);
});

test('an admin hands a link to another user: it is then theirs, and the first owner no longer finds it', async (t) => {
  const { k, alice, bob, mine } = await three(t);
  t.is((await bob.api('PATCH', `/api/v1/links/${mine.code}`, { owner: 'bob' })).status, 404, 'a member cannot take one');
  t.is((await alice.api('PATCH', `/api/v1/links/${mine.code}`, { owner: 'bob' })).status, 403, 'nor give one away');
  t.is((await k.request('PATCH', `/api/v1/links/${mine.code}`, { owner: 'nobody' })).status, 400);
  const moved = await k.request('PATCH', `/api/v1/links/${mine.code}`, { owner: 'bob' });
  t.like(await moved.json(), { owner: 'bob' });
  t.is((await alice.api('GET', `/api/v1/links/${mine.code}`)).status, 404);
  t.is((await bob.api('GET', `/api/v1/links/${mine.code}`)).status, 200);
  // The audit trail says who handed it over, to whom; it is the admins' to read, and a link's own is its owner's.
  const trail = (await (await k.get(`/api/v1/links/${mine.code}/audit`)).json()) as {
    entries: Array<{ action: string; actorName: string; via: string; details: Record<string, unknown> }>;
  };
  t.like(trail.entries[0], { action: 'link.transfer', actorName: 'admin', via: 'key', details: { from: 'alice', to: 'bob' } });
  t.is((await alice.api('GET', `/api/v1/links/${mine.code}/audit`)).status, 404);
  t.is((await bob.api('GET', `/api/v1/links/${mine.code}/audit`)).status, 200);
  t.is((await bob.api('GET', '/api/v1/audit')).status, 403);
  t.is((await bob.page('/activity')).status, 403);
  await bob.api('PATCH', `/api/v1/links/${mine.code}`, { title: 'Bob’s now' });
  await bob.api('DELETE', `/api/v1/links/${mine.code}`);
  const all = (await (await k.get('/api/v1/audit?action=link')).json()) as {
    entries: Array<{ action: string; actorName: string; details: Record<string, unknown> }>;
  };
  t.deepEqual(
    all.entries.map((e) => `${e.action} ${e.actorName}`),
    ['link.delete bob', 'link.edit bob', 'link.transfer admin', 'link.create bob', 'link.create alice'],
  );
  // Each creation is recorded with its link, by its creator, how and from where; a refused one is not.
  t.is((await bob.api('POST', '/api/v1/links', { url: 'https://example.com/x', alias: mine.code })).status, 409);
  const created = (await (await k.get('/api/v1/audit?action=link.create')).json()) as {
    entries: Array<{
      actorName: string;
      via: string;
      keyName: string;
      client: string;
      subject: { label: string };
      details: { url: string };
    }>;
  };
  t.is(created.entries.length, 2);
  t.like(created.entries[1], {
    actorName: 'alice',
    via: 'key',
    keyName: 'alice key',
    client: '127.0.0.1',
    subject: { label: `kurz.test/${mine.code}` },
    details: { url: 'https://example.com/alice' },
  });
  t.like(all.entries[1]?.details, { title: 'Bob’s now' });
  const people = (await (await k.get('/api/v1/audit?action=user')).json()) as {
    entries: Array<{ action: string; subject: { label: string } }>;
  };
  t.deepEqual(
    people.entries.map((e) => `${e.action} ${e.subject.label}`),
    ['user.create bob', 'user.create alice'],
  );
  // Its redirect never changed hands with it.
  t.is((await fetch(`${k.base}/${mine.code}`, { redirect: 'manual' })).status, 410, 'deleted by its new owner');
});

test('a member’s batch, bulk form, keys and link history are their own: nobody else’s shows through them', async (t) => {
  const { k, alice, bob, mine, theirs } = await three(t);
  // A batch is the member's: alice's URL gives bob a link of his own, and his own earlier one comes back.
  const batch = await bob.api('POST', '/api/v1/links/batch', {
    links: [{ url: 'https://example.com/alice' }, { url: 'https://example.com/b2' }, { url: 'https://example.com/b2' }],
  });
  t.is(batch.status, 200);
  const { results } = (await batch.json()) as { results: Array<{ status: string; link: { code: string; owner: string } }> };
  t.deepEqual(
    results.map((r) => [r.status, r.link.owner]),
    [
      ['created', 'bob'],
      ['created', 'bob'],
      ['existing', 'bob'],
    ],
  );
  t.not(results[0]!.link.code, mine.code);
  t.is(results[2]!.link.code, results[1]!.link.code);
  // The bulk form makes links of the member's own, too.
  const bulk = await alice.page('/import', { urls: 'https://example.com/bob\nhttps://example.com/a2' });
  t.is(bulk.status, 200);
  const aliceCodes = ((await (await alice.api('GET', '/api/v1/links')).json()) as { links: Array<{ code: string; owner: string }> }).links;
  t.is(aliceCodes.length, 3);
  t.true(aliceCodes.every((l) => l.owner === 'alice') && !aliceCodes.some((l) => l.code === theirs.code));
  // Keys: each lists and revokes only their own; another's key name is unknown to them.
  const keysPage = await (await bob.page('/keys')).text();
  t.true(keysPage.includes('bob key'));
  t.false(keysPage.includes('alice key'));
  t.is((await bob.page('/keys/revoke?name=alice%20key')).status, 404);
  await bob.page('/keys/revoke', { name: 'alice key' });
  t.is((await alice.api('GET', '/api/v1/links')).status, 200, 'her key still works');
  // A link's history is its owner's (and the admins'); another member gets 404.
  t.is((await alice.api('GET', `/api/v1/links/${mine.code}/audit`)).status, 200);
  t.is((await bob.api('GET', `/api/v1/links/${mine.code}/audit`)).status, 404);
  t.is((await k.get(`/api/v1/links/${mine.code}/audit`)).status, 200);
});

test('the figures are each user’s, from the rollups: a member’s own; an admin’s all or one owner’s; a handed-over link takes its visits along', async (t) => {
  const { k, alice, bob, mine, theirs } = await three(t);
  t.is((await k.postJson('/api/v1/links', { url: 'https://example.com/admin', alias: 'admins' })).status, 201);
  for (const [code, visits] of [
    [mine.code, 3],
    [theirs.code, 1],
    ['admins', 2],
  ] as const)
    for (let i = 0; i < visits; i++) {
      const res = await fetch(`${k.base}/${code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } });
      t.is(res.status, 302);
    }
  await k.flushVisits();
  const figures = async (res: Response) => {
    t.is(res.status, 200);
    const s = (await res.json()) as {
      totals: { links: number; humans: number };
      period: { humans: number; linksCreated: number };
      topLinks: Array<{ code: string; humans: number }>;
    };
    return {
      links: s.totals.links,
      humans: s.totals.humans,
      period: s.period.humans,
      created: s.period.linksCreated,
      top: s.topLinks.map((l) => `${l.code} ${l.humans}`),
    };
  };
  const alices = { links: 1, humans: 3, period: 3, created: 1, top: [`${mine.code} 3`] };
  const bobs = { links: 1, humans: 1, period: 1, created: 1, top: [`${theirs.code} 1`] };
  t.deepEqual(await figures(await alice.api('GET', '/api/v1/stats')), alices);
  t.deepEqual(await figures(await bob.api('GET', '/api/v1/stats?owner=alice')), bobs, 'naming another owner changes nothing for a member');
  const everyone = { links: 3, humans: 6, period: 6, created: 3, top: [`${mine.code} 3`, 'admins 2', `${theirs.code} 1`] };
  t.deepEqual(await figures(await k.get('/api/v1/stats')), everyone);
  t.deepEqual(await figures(await k.get('/api/v1/stats?owner=bob')), bobs);
  t.is((await k.get('/api/v1/stats?owner=nobody')).status, 400);
  // The dashboard shows the same: a member's own figures, never another's link.
  const board = await (await alice.page('/')).text();
  t.regex(board, /Last 14 days, your links/);
  t.true(board.includes(`>${mine.code}</a>`));
  t.false(board.includes(`>${theirs.code}</a>`) || board.includes('>admins</a>'));
  const admin = await k.login();
  const bobsBoard = await (await fetch(`${k.base}/?owner=bob`, { headers: { cookie: admin, accept: BROWSER_ACCEPT } })).text();
  t.regex(bobsBoard, /Last 14 days, bob’s links|Last 14 days, bob&#39;s links/);
  // Handed to bob, alice's link takes its links and visits into his figures, out of hers; the instance's stay.
  t.is((await k.request('PATCH', `/api/v1/links/${mine.code}`, { owner: 'bob' })).status, 200);
  t.deepEqual(await figures(await alice.api('GET', '/api/v1/stats')), { links: 0, humans: 0, period: 0, created: 0, top: [] });
  t.deepEqual(await figures(await bob.api('GET', '/api/v1/stats')), {
    links: 2,
    humans: 4,
    period: 4,
    created: 2,
    top: [`${mine.code} 3`, `${theirs.code} 1`],
  });
  t.deepEqual(await figures(await k.get('/api/v1/stats')), everyone);
});

test('an admin hands every link of a user to another, by the API or the users page; their figures go along; members may not', async (t) => {
  const { k, alice, bob, mine, theirs } = await three(t);
  const second = await create(alice, { url: 'https://example.com/alice/2' });
  t.is((await alice.api('DELETE', `/api/v1/links/${second.code}`)).status, 204);
  t.is((await fetch(`${k.base}/${mine.code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER_UA } })).status, 302);
  await k.flushVisits();
  // A member may not, even for their own links; bad input is a precise 4xx and moves nothing.
  t.is((await alice.api('POST', '/api/v1/users/alice/handover', { to: 'bob' })).status, 403);
  t.is((await k.postJson('/api/v1/users/nobody/handover', { to: 'bob' })).status, 404);
  const unknown = await k.postJson('/api/v1/users/alice/handover', { to: 'nobody' });
  t.is(unknown.status, 400);
  t.like(await unknown.json(), { field: 'to' });
  t.is((await k.postJson('/api/v1/users/alice/handover', { to: 'alice' })).status, 400);
  t.is((await k.postJson('/api/v1/users/alice/handover', {})).status, 400);
  t.is((await alice.api('GET', `/api/v1/links/${mine.code}`)).status, 200, 'nothing moved');

  const res = await k.postJson('/api/v1/users/alice/handover', { to: 'bob' });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { from: 'alice', to: 'bob', links: 2 }, 'her deleted link too');
  t.is((await alice.api('GET', `/api/v1/links/${mine.code}`)).status, 404);
  const bobs = ((await (await bob.api('GET', '/api/v1/links')).json()) as { links: Array<{ code: string; owner: string }> }).links;
  t.deepEqual(bobs.map((l) => l.code).sort(), [mine.code, theirs.code].sort());
  const stats = (await (await bob.api('GET', '/api/v1/stats')).json()) as { totals: { links: number; humans: number } };
  t.deepEqual(stats.totals, { links: 2, humans: 1 }, 'her visit went with her link');
  const trail = (await (await k.get('/api/v1/audit?action=user.handover')).json()) as {
    entries: Array<{ actorName: string; subject: { label: string }; details: Record<string, unknown> }>;
  };
  t.like(trail.entries[0], { actorName: 'admin', subject: { label: 'alice' }, details: { to: 'bob', links: 2 } });

  // The users page does the same with a form, and says what it did.
  const cookie = await k.login();
  const csrf = csrfOf(await (await fetch(`${k.base}/users`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text());
  const posted = await fetch(`${k.base}/users/bob`, {
    method: 'POST',
    headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, action: 'handover', to: 'alice' }),
    redirect: 'manual',
  });
  t.is(posted.status, 303);
  const page = await (await fetch(k.base + posted.headers.get('location')!, { headers: { cookie, accept: BROWSER_ACCEPT } })).text();
  t.regex(page, /3 links of <strong>bob<\/strong> are now <strong>alice<\/strong>’s/);
  t.is((await alice.api('GET', `/api/v1/links/${theirs.code}`)).status, 200);
});

test('the one-time link sets a password once, within 24 hours; its token is never logged', async (t) => {
  const k = await startKurz(t, { accessLog: true });
  const added = (await (await k.postJson('/api/v1/users', { name: 'carol' })).json()) as { link: string; hasPassword: boolean };
  t.false(added.hasPassword);
  const path = new URL(added.link).pathname;
  const token = path.slice('/welcome/'.length);
  const form = await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT } });
  t.is(form.status, 200);
  const html = await form.text();
  t.true(html.includes('carol'));
  const post = (fields: Record<string, string>) =>
    fetch(k.base + path, {
      method: 'POST',
      headers: { cookie: cookiesOf(form), accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(html), ...fields }),
      redirect: 'manual',
    });
  t.is((await post({ password: PASSWORD, repeat: 'something else' })).status, 400);
  t.is((await post({ password: 'short', repeat: 'short' })).status, 400);
  const done = await post({ password: PASSWORD, repeat: PASSWORD });
  t.is(done.status, 303);
  t.truthy(await loginAs(k.base, 'carol', PASSWORD));
  t.is((await post({ password: 'another long password', repeat: 'another long password' })).status, 410, 'used once');
  t.is((await fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT } })).status, 410);
  // A reset gives a new link, which expires after 24 hours.
  const reset = (await (await k.postJson('/api/v1/users/carol/reset', {})).json()) as { link: string };
  k.clock.advance(24 * 3_600_000 + 1);
  t.is((await fetch(reset.link.replace('https://kurz.test', k.base), { headers: { accept: BROWSER_ACCEPT } })).status, 410);
  t.false(
    k.accessLog.some((line) => line.includes(token)),
    'the token is in no access-log line',
  );
  t.false(k.log.lines.some((line) => line.includes(token)));
});
