import test, { type ExecutionContext } from 'ava';
import { BROWSER_ACCEPT, csrfOf, getWithHost, runCli, startKurz, waitFor, type TestKurz } from '../helpers.ts';
import { browser } from './ui-session.ts';
import { member, type Member } from './members.ts';

// Domains limited to some users, through every route that creates or moves a link: two members (alice, bob)
// and the admin; club.kurz.test is alice's alone, staff.kurz.test the admins', open.kurz.test everyone's.

interface Problem {
  status: number;
  code: string;
  detail: string;
  field?: string;
}

interface DomainJson {
  host: string;
  users?: string[] | null;
}

async function withDomains(t: ExecutionContext, settings: Record<string, unknown> = {}) {
  const k = await startKurz(t, settings);
  const [alice, bob] = [await member(k, 'alice'), await member(k, 'bob')];
  for (const [host, users] of [
    ['club.kurz.test', ['Alice']],
    ['staff.kurz.test', []],
    ['open.kurz.test', undefined],
  ] as const) {
    const res = await k.postJson('/api/v1/domains', { host, ...(users === undefined ? {} : { users }) });
    if (res.status !== 201) throw new Error(`adding ${host}: ${res.status} ${await res.text()}`);
  }
  return { k, alice, bob };
}

/** The hosts the domain select of a page offers. */
function domainChoices(html: string): string[] {
  const select = /<select id="domain" name="domain"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
  return [...select.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]!);
}

async function problemOf(res: Response): Promise<Problem> {
  return (await res.json()) as Problem;
}

/** Creates through the API as `who` (a member, or the admin's key); the status and the body. */
async function createAs(k: TestKurz, who: Member | 'admin', body: Record<string, unknown>) {
  const res = who === 'admin' ? await k.postJson('/api/v1/links', body) : await who.api('POST', '/api/v1/links', body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the API creates a link on a limited domain only for the users it names and the admins: 403 naming the domain', async (t) => {
  const { k, alice, bob } = await withDomains(t);
  t.is((await createAs(k, alice, { url: 'https://example.com/a', domain: 'club.kurz.test' })).status, 201);
  t.is((await createAs(k, 'admin', { url: 'https://example.com/admin', domain: 'club.kurz.test' })).status, 201, 'admins always may');
  t.is((await createAs(k, 'admin', { url: 'https://example.com/staff', domain: 'staff.kurz.test' })).status, 201);
  for (const [who, host] of [
    [bob, 'club.kurz.test'],
    [bob, 'CLUB.kurz.test.'],
    [alice, 'staff.kurz.test'],
  ] as const) {
    const refused = await createAs(k, who, { url: 'https://example.com/b', domain: host });
    t.is(refused.status, 403, `${who.name} on ${host}`);
    t.like(refused.body, { code: 'forbidden', field: 'domain' });
    t.regex(String(refused.body['detail']), /^domain "(club|staff)\.kurz\.test" is not open to you/);
  }
  for (const who of [alice, bob])
    t.is((await createAs(k, who, { url: `https://example.com/${who.name}`, domain: 'open.kurz.test' })).status, 201);
  t.is((await createAs(k, bob, { url: 'https://example.com/default' })).status, 201, 'the default domain is open to everyone');
  t.is(await k.linkCount(), 6, 'nothing stored for the refusals');
});

test('a batch refuses each entry on a domain the member may not use, and stores the others', async (t) => {
  const { bob } = await withDomains(t);
  const res = await bob.api('POST', '/api/v1/links/batch', {
    links: [
      { url: 'https://example.com/1', domain: 'open.kurz.test' },
      { url: 'https://example.com/2', domain: 'club.kurz.test' },
      { url: 'https://example.com/3' },
    ],
  });
  t.is(res.status, 200);
  const body = (await res.json()) as {
    created: number;
    failed: number;
    results: Array<{ status: string; error?: { code: string; field: string } }>;
  };
  t.like(body, { created: 2, failed: 1 });
  t.deepEqual(
    body.results.map((r) => r.status),
    ['created', 'error', 'created'],
  );
  t.deepEqual(body.results[1]!.error, { code: 'forbidden', field: 'domain', message: body.results[1]!.error!['message' as 'code'] });
});

test('a member moves a link only to a domain they may use; the domain it is on stays theirs to edit', async (t) => {
  const { k, alice, bob } = await withDomains(t);
  const mine = (await createAs(k, bob, { url: 'https://example.com/bob', alias: 'bobs' })).body;
  const moved = await bob.api('PATCH', '/api/v1/links/bobs', { domain: 'club.kurz.test' });
  t.is(moved.status, 403);
  t.like(await problemOf(moved), { code: 'forbidden', field: 'domain' });
  t.is((await bob.api('PATCH', '/api/v1/links/bobs', { domain: 'open.kurz.test' })).status, 200);
  t.is((await bob.api('PATCH', '/api/v1/links/bobs?domain=open.kurz.test', { domain: 'kurz.test' })).status, 200);
  t.is(mine['owner'], 'bob');
  // Another's link is not found, whatever domain it names: the refusal tells nothing of it.
  await createAs(k, alice, { url: 'https://example.com/alice', alias: 'alices' });
  t.is((await bob.api('PATCH', '/api/v1/links/alices', { domain: 'club.kurz.test' })).status, 404);
  // The form refuses the move beside the domain select.
  const page = await bob.page('/links/bobs', { url: 'https://example.com/bob', domain: 'club.kurz.test' });
  t.is(page.status, 403);
  t.regex(await page.text(), /id="domain-error" role="alert">Domain &quot;club\.kurz\.test&quot; is not open to you/);
});

test('a user taken off a domain keeps their links there (they redirect and stay editable), and creates no more', async (t) => {
  const { k, alice } = await withDomains(t);
  const { body } = await createAs(k, alice, { url: 'https://example.com/kept', domain: 'club.kurz.test', alias: 'kept' });
  t.is(body['shortUrl'], 'https://club.kurz.test/kept');
  const edited = await k.request('PATCH', '/api/v1/domains/club.kurz.test', { users: ['bob'] });
  t.is(edited.status, 200);
  t.deepEqual(((await edited.json()) as DomainJson).users, ['bob']);
  t.is((await getWithHost(k.base, 'club.kurz.test', '/kept')).location, 'https://example.com/kept');
  t.is((await alice.api('PATCH', '/api/v1/links/kept?domain=club.kurz.test', { url: 'https://example.com/still-mine' })).status, 200);
  t.is((await createAs(k, alice, { url: 'https://example.com/new', domain: 'club.kurz.test' })).status, 403);
  // Opened to everyone again, she may.
  t.is((await k.request('PATCH', '/api/v1/domains/club.kurz.test', { users: null })).status, 200);
  t.is((await createAs(k, alice, { url: 'https://example.com/new', domain: 'club.kurz.test' })).status, 201);
});

test('the create form offers a member only the domains they may use, and refuses another beside its field', async (t) => {
  const { k, alice, bob } = await withDomains(t);
  const options = async (m: Member) => domainChoices(await (await m.page('/')).text());
  t.deepEqual(await options(alice), ['kurz.test', 'club.kurz.test', 'open.kurz.test']);
  t.deepEqual(await options(bob), ['kurz.test', 'open.kurz.test']);
  const admin = await browser(k);
  t.deepEqual(domainChoices((await admin.page('/')).html), ['kurz.test', 'club.kurz.test', 'open.kurz.test', 'staff.kurz.test']);
  const refused = await bob.page('/', { url: 'https://example.com/form', domain: 'club.kurz.test', enabled: 'true' });
  t.is(refused.status, 403);
  const html = await refused.text();
  t.regex(html, /id="domain-error" role="alert">Domain &quot;club\.kurz\.test&quot; is not open to you/);
  t.regex(html, /value="https:\/\/example\.com\/form"/, 'the form comes back as typed');
  const created = await alice.page('/', { url: 'https://example.com/form', domain: 'club.kurz.test', enabled: 'true' });
  t.is(created.status, 303);
  t.regex(created.headers.get('location') ?? '', /domain=club\.kurz\.test/);
  // The link page's move select: the domains she may use and the one the link is on.
  const staffLink = await createAs(k, 'admin', { url: 'https://example.com/staff', domain: 'staff.kurz.test', alias: 'st' });
  t.is(staffLink.status, 201);
  await k.request('PATCH', '/api/v1/links/st?domain=staff.kurz.test', { owner: 'bob' });
  const linkPage = await (await bob.page('/links/st?domain=staff.kurz.test')).text();
  t.deepEqual(domainChoices(linkPage), ['kurz.test', 'open.kurz.test', 'staff.kurz.test']);
});

test('anonymous shortening uses only domains open to everyone', async (t) => {
  const { k } = await withDomains(t, { anonymousShortening: true });
  const shorten = async () => {
    const page = await fetch(`${k.base}/`, { headers: { accept: BROWSER_ACCEPT } });
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return fetch(`${k.base}/`, {
      method: 'POST',
      headers: { accept: BROWSER_ACCEPT, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrfOf(await page.text()), url: 'https://example.com/anon' }),
    });
  };
  t.is((await shorten()).status, 200);
  // The default domain limited to alice (the anonymous creator's links belong to the first admin: no matter).
  t.is((await k.request('PATCH', '/api/v1/domains/kurz.test', { users: ['alice'] })).status, 200);
  const refused = await shorten();
  t.is(refused.status, 403);
  t.regex(await refused.text(), /<p class="alert" role="alert">Domain &quot;kurz\.test&quot; is not open to you/);
});

test('the domains API: users for admins, a 400 naming an unknown user, a member sees only the domains they may use', async (t) => {
  const { k, bob } = await withDomains(t);
  const listed = (await (await k.get('/api/v1/domains')).json()) as { domains: DomainJson[] };
  t.deepEqual(
    listed.domains.map((d) => [d.host, d.users]),
    [
      ['kurz.test', null],
      ['club.kurz.test', ['alice']],
      ['open.kurz.test', null],
      ['staff.kurz.test', []],
    ],
  );
  const unknown = await k.request('PATCH', '/api/v1/domains/open.kurz.test', { users: ['alice', 'nobody'] });
  t.is(unknown.status, 400);
  t.like(await problemOf(unknown), { field: 'users', detail: 'users: no user named "nobody" (kurz users list shows them)' });
  t.is((await k.request('PATCH', '/api/v1/domains/open.kurz.test', { users: 'alice' })).status, 400);
  t.is((await k.postJson('/api/v1/domains', { host: 'x.kurz.test', users: ['nobody'] })).status, 400);
  t.is((await k.get('/api/v1/domains/x.kurz.test')).status, 404, 'nothing added');

  const seen = (await (await bob.api('GET', '/api/v1/domains')).json()) as { domains: DomainJson[] };
  t.deepEqual(
    seen.domains.map((d) => d.host),
    ['kurz.test', 'open.kurz.test'],
  );
  t.false(
    seen.domains.some((d) => 'users' in d || 'links' in d),
    'a member is not told who else may use a domain, nor how many links others have on it',
  );
  t.is((await bob.api('GET', '/api/v1/domains/club.kurz.test')).status, 404);
  const one = await bob.api('GET', '/api/v1/domains/open.kurz.test');
  t.is(one.status, 200);
  t.false('links' in ((await one.json()) as object));
  t.is((await bob.api('PATCH', '/api/v1/domains/club.kurz.test', { users: null })).status, 403, 'domains are the admins’');
});

test('the domain page sets who may use it with a picker that needs no JavaScript', async (t) => {
  const { k } = await withDomains(t);
  const admin = await browser(k);
  const { html } = await admin.page('/domains/club.kurz.test');
  t.regex(html, /<input type="radio" id="access-some" name="access" value="some" checked>/);
  t.regex(html, /name="user:alice" value="true" checked>/);
  t.regex(html, /name="user:bob" value="true">/);
  t.regex(html, /\(admin, always may\)/);
  const saved = await admin.submit('/domains/club.kurz.test', {
    scheme: '',
    notFoundRedirect: '',
    rootRedirect: '',
    access: 'some',
    'user:alice': 'true',
    'user:bob': 'true',
  });
  t.is(saved.status, 303);
  t.deepEqual(
    k.kurz.services.domains.named('club.kurz.test').users?.map((u) => u.name),
    ['alice', 'bob'],
  );
  t.regex((await admin.page('/domains')).html, /<td data-label="Open to"><span>alice, bob<\/span><\/td>/);
  const unknown = await admin.submit('/domains/club.kurz.test', {
    scheme: '',
    notFoundRedirect: '',
    rootRedirect: '',
    access: 'some',
    'user:zed': 'true',
  });
  t.is(unknown.status, 400);
  t.regex(await unknown.text(), /id="access-error" role="alert">Users: no user named &quot;zed&quot;/);
  t.is(
    (
      await admin.submit('/domains/club.kurz.test', {
        scheme: '',
        notFoundRedirect: '',
        rootRedirect: '',
        access: 'everyone',
        'user:bob': 'true',
      })
    ).status,
    303,
  );
  t.is(k.kurz.services.domains.named('club.kurz.test').users, null, 'everyone: the ticks do not matter');
  const added = await admin.submit('/domains', {
    host: 'new.kurz.test',
    scheme: '',
    notFoundRedirect: '',
    rootRedirect: '',
    access: 'some',
    'user:bob': 'true',
  });
  t.is(added.status, 303);
  t.deepEqual(k.kurz.services.domains.named('new.kurz.test').users, [
    { id: k.kurz.services.domains.named('new.kurz.test').users![0]!.id, name: 'bob' },
  ]);
});

test('adding, editing and removing a domain is in the audit trail with who did it and what changed', async (t) => {
  const { k } = await withDomains(t);
  await k.request('PATCH', '/api/v1/domains/club.kurz.test', { users: ['alice', 'bob'], rootRedirect: 'https://example.com/club' });
  await k.request('PATCH', '/api/v1/domains/club.kurz.test', { users: ['bob', 'alice'] });
  t.is((await k.request('DELETE', '/api/v1/domains/open.kurz.test')).status, 204);
  const res = await k.get('/api/v1/audit?action=domain');
  t.is(res.status, 200);
  const { entries } = (await res.json()) as {
    entries: Array<{ action: string; actorName: string; via: string; subject: { label: string }; details: Record<string, unknown> }>;
  };
  t.deepEqual(
    entries.map((e) => [e.action, e.subject.label, e.details]),
    [
      ['domain.remove', 'open.kurz.test', {}],
      ['domain.edit', 'club.kurz.test', { rootRedirect: 'https://example.com/club', users: 'alice, bob' }],
      ['domain.add', 'open.kurz.test', { users: 'everyone' }],
      ['domain.add', 'staff.kurz.test', { users: 'admins only' }],
      ['domain.add', 'club.kurz.test', { users: 'alice' }],
    ],
    'an edit that changes nothing is not recorded',
  );
  t.like(entries[0], { actorName: 'admin', via: 'key' });
  const activity = (await (await browser(k)).page('/activity?action=domain.edit')).html;
  t.regex(activity, /domain\.edit/);
  t.regex(activity, /users: alice, bob/);
});

test('who may use a domain, changed by another process, holds in the server without a restart', async (t) => {
  const { k, bob } = await withDomains(t);
  t.is((await createAs(k, bob, { url: 'https://example.com/1', domain: 'open.kurz.test' })).status, 201);
  const edited = await runCli(['domains', 'edit', 'open.kurz.test', '--users', 'alice'], {
    ...k.database.env,
    KURZ_PUBLIC_URL: 'https://kurz.test',
  });
  t.is(edited.code, 0, edited.stderr);
  await waitFor(async () => (await createAs(k, bob, { url: 'https://example.com/2', domain: 'open.kurz.test' })).status === 403);
  t.deepEqual(
    k.kurz.services.domains.named('open.kurz.test').users?.map((u) => u.name),
    ['alice'],
  );
});
