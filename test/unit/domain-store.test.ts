import test from 'ava';
import { AppError } from '../../src/core/errors.ts';
import type { NewLink } from '../../src/links/link.ts';
import type { Storage } from '../../src/store/ports.ts';
import { rollUp } from '../../src/visits/rollup.ts';
import { DAY, type Visit } from '../../src/visits/visit.ts';
import { freshStorage, newLink as sharedNewLink } from '../helpers.ts';

// The domain ports and links across domains, on the backend of the run (SQLite, or PostgreSQL in make
// test's second pass): both must answer alike.

const START = Date.UTC(2026, 0, 1);

function newLink(domain: number, code: string, fields: Partial<NewLink> = {}): NewLink {
  return sharedNewLink(code, {
    domain,
    url: `https://example.com/${domain}/${code}`,
    isAlias: true,
    createdAt: new Date(START),
    ...fields,
  });
}

const insert = (storage: Storage, link: NewLink) => storage.links.write((tx) => tx.insertLink(link, null));

async function addDomain(storage: Storage, host: string): Promise<number> {
  const domain = await storage.domains.insertDomain({
    host,
    scheme: null,
    users: null,
    notFoundRedirect: null,
    rootRedirect: null,
    createdAt: new Date(START),
  });
  if (!domain) throw new Error(`${host} was refused`);
  return domain.id;
}

function visit(linkId: number, at: number): Visit {
  return {
    linkId,
    at,
    bot: null,
    referrer: null,
    browser: null,
    os: null,
    device: null,
    country: null,
    language: null,
    visitor: null,
    variant: null,
    rule: null,
  };
}

test('the same alias on two domains: two links, each found at its own address, a third refused', async (t) => {
  const { storage } = await freshStorage(t);
  const s2 = await addDomain(storage, 's2.example');
  const onDefault = await insert(storage, newLink(0, 'promo'));
  const onS2 = await insert(storage, newLink(s2, 'promo'));
  t.not(onDefault, undefined);
  t.not(onS2, undefined);
  t.not(onDefault, onS2);
  t.like(await storage.links.linkByAddress(0, 'promo'), { id: onDefault, domain: 0, url: 'https://example.com/0/promo' });
  t.like(await storage.links.linkByAddress(s2, 'promo'), { id: onS2, domain: s2, url: `https://example.com/${s2}/promo` });
  t.like(await storage.links.targetByAddress(s2, 'promo'), { id: onS2, url: `https://example.com/${s2}/promo` });
  t.is(await storage.links.targetByAddress(s2, 'other'), undefined);
  t.is(await insert(storage, newLink(s2, 'promo', { url: 'https://example.com/again' })), undefined, 'taken on s2');
  t.deepEqual(
    (await storage.links.listLinks({ limit: 10, domain: s2 })).map((l) => [l.id, l.domain]),
    [[onS2, s2]],
  );
  t.deepEqual(
    (await storage.links.listLinks({ limit: 10, domain: 0 })).map((l) => l.id),
    [onDefault],
  );
  t.is((await storage.links.listLinks({ limit: 10 })).length, 2, 'no domain: all of them');
});

test('a generated code is refused when any domain has it; an alias only when its own domain has it', async (t) => {
  const { storage } = await freshStorage(t);
  const s2 = await addDomain(storage, 's2.example');
  await insert(storage, newLink(s2, 'abc'));
  t.is(await insert(storage, newLink(0, 'abc', { isAlias: false })), undefined, 'the alias on s2 holds the generated code');
  t.not(await insert(storage, newLink(0, 'abc')), undefined, 'as an alias on the default domain it is free');
  t.not(await insert(storage, newLink(0, 'xyz', { isAlias: false })), undefined);
  t.not(await insert(storage, newLink(s2, 'xyz')), undefined, 'an alias may take a code generated on another domain');
});

test('a link is never written onto a domain that does not exist or was removed', async (t) => {
  const { storage } = await freshStorage(t);
  const s2 = await addDomain(storage, 's2.example');
  t.is(await storage.domains.removeDomain(s2, new Date(START)), 'removed');
  for (const domain of [s2, 99]) {
    const error = await t.throwsAsync(insert(storage, newLink(domain, 'lost')), { instanceOf: AppError });
    t.is(error.code, 'invalid');
  }
  const id = (await insert(storage, newLink(0, 'kept')))!;
  const moved = storage.links.write(async (tx) =>
    tx.updateLink((await tx.linkByAddress(0, 'kept'))!, { domain: s2 }, null, new Date(START)),
  );
  t.is((await t.throwsAsync(moved, { instanceOf: AppError })).code, 'invalid');
  t.like(await storage.links.linkByAddress(0, 'kept'), { id, domain: 0 });
});

test('a move takes the link to its code on the other domain, and is refused with a conflict when the code is taken there', async (t) => {
  const { storage } = await freshStorage(t);
  const s2 = await addDomain(storage, 's2.example');
  const a = (await insert(storage, newLink(0, 'a')))!;
  await insert(storage, newLink(s2, 'a'));
  const b = (await insert(storage, newLink(0, 'b', { tags: ['t'] })))!;
  const move = (code: string) =>
    storage.links.write(async (tx) => tx.updateLink((await tx.linkByAddress(0, code))!, { domain: s2 }, null, new Date(START + 1)));

  const error = await t.throwsAsync(move('a'), { instanceOf: AppError });
  t.is(error.code, 'conflict');
  t.is(error.field, 'domain');
  t.like(await storage.links.linkByAddress(0, 'a'), { id: a, domain: 0 }, 'left where it was');
  await storage.links.write((tx) => tx.deleteLink(a, new Date(START)));
  t.is((await t.throwsAsync(move('a'), { instanceOf: AppError })).code, 'conflict', 'deleted or not');

  const before = await storage.links.lastChange();
  t.true(await move('b'));
  t.is(await storage.links.linkByAddress(0, 'b'), undefined);
  t.like(await storage.links.linkByAddress(s2, 'b'), { id: b, domain: s2, tags: ['t'], updatedAt: new Date(START + 1) });
  t.deepEqual(
    (await storage.links.changesAfter(before)).map(({ linkId, domain, code }) => ({ linkId, domain, code })),
    [
      { linkId: b, domain: 0, code: 'b' },
      { linkId: b, domain: s2, code: 'b' },
    ],
    'the old address and the new one',
  );

  const edited = await storage.links.lastChange();
  await storage.links.write(async (tx) =>
    tx.updateLink((await tx.linkByAddress(s2, 'b'))!, { url: 'https://example.com/n' }, null, new Date(START + 2)),
  );
  t.deepEqual(
    (await storage.links.changesAfter(edited)).map(({ linkId, domain, code }) => ({ linkId, domain, code })),
    [{ linkId: b, domain: s2, code: 'b' }],
    'an edit that does not move logs its address once',
  );
});

test('a domain limited to some users: kept with their names, set again in one change the other processes hear of', async (t) => {
  const { storage } = await freshStorage(t);
  const { domains, links, access } = storage;
  const user = async (name: string) =>
    (await access.insertUser({ name, email: null, role: 'member', createdAt: new Date(START), inviteHash: null, inviteExpiresAt: null }))!;
  const [zoe, ana] = [await user('zoe'), await user('Ana')];
  const added = await domains.insertDomain({
    host: 'club.example',
    scheme: null,
    notFoundRedirect: null,
    rootRedirect: null,
    users: [zoe, ana],
    createdAt: new Date(START),
  });
  t.deepEqual(
    added?.users,
    [
      { id: ana.id, name: 'Ana' },
      { id: zoe.id, name: 'zoe' },
    ],
    'by name, whatever its case',
  );
  const club = added!.id;
  const empty = (await domains.insertDomain({
    host: 'staff.example',
    scheme: null,
    notFoundRedirect: null,
    rootRedirect: null,
    users: [],
    createdAt: new Date(START),
  }))!;
  t.deepEqual(empty.users, [], 'none named: admins only');
  t.deepEqual(
    (await domains.listDomains()).map((d) => [d.host, d.users?.map((u) => u.name) ?? null]),
    [
      ['', null],
      ['club.example', ['Ana', 'zoe']],
      ['staff.example', []],
    ],
  );
  const seq = await links.lastChange();
  t.like(
    await domains.updateDomain(club, { scheme: 'http' }),
    { scheme: 'http', users: [{ name: 'Ana' }, { name: 'zoe' }] },
    'another field leaves them',
  );
  t.deepEqual((await domains.updateDomain(club, { users: [zoe] }))?.users, [{ id: zoe.id, name: 'zoe' }]);
  t.deepEqual(
    (await links.changesAfter(seq)).map((c) => [c.linkId, c.domain]),
    [
      [null, club],
      [null, club],
    ],
    'each change of the domain is logged, its users too',
  );
  t.is((await domains.updateDomain(club, { users: null }))?.users, null, 'open to everyone again');
  t.is((await domains.updateDomain(empty.id, { users: null }))?.users, null);
  t.deepEqual(
    (await domains.listDomains()).map((d) => d.users),
    [null, null, null],
  );
});

test('domains: added, edited, listed with their live links, removed once no live link is on them; each change logged', async (t) => {
  const { storage } = await freshStorage(t);
  const { domains, links } = storage;
  const start = await links.lastChange();
  const s2 = await addDomain(storage, 's2.example');
  t.is(
    await domains.insertDomain({
      host: 's2.example',
      scheme: 'http',
      notFoundRedirect: null,
      rootRedirect: null,
      users: null,
      createdAt: new Date(1),
    }),
    undefined,
    'a live domain has the host',
  );
  const b = await addDomain(storage, 'b.example');
  t.true(s2 > 0 && b > s2, 'ids from 1 up');
  t.deepEqual(await domains.updateDomain(s2, { scheme: 'https', notFoundRedirect: 'https://example.com/404' }), {
    id: s2,
    host: 's2.example',
    scheme: 'https',
    notFoundRedirect: 'https://example.com/404',
    rootRedirect: null,
    users: null,
    createdAt: new Date(START),
  });
  t.like(await domains.updateDomain(s2, { notFoundRedirect: null, rootRedirect: 'https://example.com/' }), {
    scheme: 'https',
    notFoundRedirect: null,
    rootRedirect: 'https://example.com/',
  });
  t.is(await domains.updateDomain(99, { scheme: 'http' }), undefined);

  const id = (await insert(storage, newLink(s2, 'x')))!;
  await insert(storage, newLink(s2, 'y'));
  await links.write((tx) => tx.deleteLink(id, new Date(START + 1)));
  t.deepEqual(
    (await domains.listDomains()).map((d) => [d.id, d.host, d.links]),
    [
      [0, '', 0],
      [b, 'b.example', 0],
      [s2, 's2.example', 1],
    ],
    'the default first, then by host; deleted links not counted',
  );

  t.is(await domains.removeDomain(s2, new Date(START + 2)), 'in_use');
  const y = (await links.linkByAddress(s2, 'y'))!;
  await links.write((tx) => tx.deleteLink(y.id, new Date(START + 3)));
  t.is(await domains.removeDomain(s2, new Date(START + 4)), 'removed');
  t.is(await domains.removeDomain(s2, new Date(START + 4)), 'not_found', 'already removed');
  t.is(await domains.removeDomain(99, new Date(START + 4)), 'not_found');
  t.is(await domains.removeDomain(0, new Date(START + 4)), 'not_found', 'the default domain is never removed');
  t.is(await domains.updateDomain(s2, { scheme: 'http' }), undefined, 'a removed domain is not edited');
  t.like(await links.linkByAddress(s2, 'y'), { domain: s2, deletedAt: new Date(START + 3) }, 'its deleted links keep it');
  t.deepEqual(
    (await domains.listDomains()).map((d) => d.id),
    [0, b],
  );
  const again = await addDomain(storage, 's2.example');
  t.true(again > b, 'the host may be added again, as a new domain');

  const domainEntries = (await links.changesAfter(start)).filter((c) => c.linkId === null);
  t.deepEqual(
    domainEntries.map(({ domain, code }) => [domain, code]),
    [
      [s2, null],
      [b, null],
      [s2, null],
      [s2, null],
      [s2, null],
      [again, null],
    ],
    'added, added, edited twice, removed, added',
  );
});

test('domain totals: each domain not removed, its live links and its links’ human visits in the period', async (t) => {
  const { storage } = await freshStorage(t);
  const s2 = await addDomain(storage, 's2.example');
  const gone = await addDomain(storage, 'gone.example');
  t.is(await storage.domains.removeDomain(gone, new Date(START)), 'removed');
  const home = (await insert(storage, newLink(0, 'home')))!;
  const one = (await insert(storage, newLink(s2, 'one')))!;
  const two = (await insert(storage, newLink(s2, 'two')))!;
  await storage.links.write((tx) => tx.deleteLink(two, new Date(START + 1)));
  await storage.visits.addVisits(
    rollUp(
      [visit(home, START + 5), visit(one, START + 6), visit(one, START + 7), visit(two, START + 8), visit(one, START + 2 * DAY)],
      true,
    ),
  );
  t.deepEqual(await storage.visits.domainTotals(new Date(START), new Date(START + DAY)), [
    { domain: 0, links: 1, humans: 1 },
    { domain: s2, links: 1, humans: 3 },
  ]);
  t.deepEqual(
    (await storage.visits.topLinks(new Date(START), new Date(START + DAY), 2)).map((l) => [l.domain, l.code, l.humans]),
    [
      [s2, 'one', 2],
      [0, 'home', 1],
    ],
  );
});
