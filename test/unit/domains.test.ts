import test from 'ava';
import { anonymous, type Actor } from '../../src/auth/actor.ts';
import { AppError } from '../../src/core/errors.ts';
import { hostOfHeader, mayUse, normaliseHost, type Domain } from '../../src/domains/domain.ts';
import { usersText } from '../../src/domains/manage.ts';
import { DomainRegistry } from '../../src/domains/registry.ts';

const domain = (id: number, host: string, scheme: Domain['scheme'] = null): Domain => ({
  id,
  host,
  scheme,
  notFoundRedirect: null,
  rootRedirect: null,
  users: null,
  createdAt: new Date(0),
});

for (const [header, host] of [
  ['s2.example', 's2.example'],
  ['S2.Example', 's2.example'],
  ['s2.example:8080', 's2.example'],
  ['s2.example.', 's2.example'],
  ['S2.EXAMPLE.:443', 's2.example'],
  ['bücher.example', 'xn--bcher-kva.example'],
  ['127.0.0.1:8080', '127.0.0.1'],
  ['[::1]:8080', '[::1]'],
  ['', undefined],
  [undefined, undefined],
  [':80', undefined],
] as const) {
  test(`the Host ${JSON.stringify(header)} names ${JSON.stringify(host)}`, (t) => {
    t.is(hostOfHeader(header), host);
  });
}

test('a host a person types is normalised, and what is no host name is refused naming the field', (t) => {
  t.is(normaliseHost(' Bücher.Example. '), 'xn--bcher-kva.example');
  for (const bad of [
    '',
    'http://s.example',
    's.example:80',
    's.example/x',
    'user@s.example',
    '10.0.0.1',
    'localhost',
    'a..b',
    'bad-.example',
    5,
    null,
  ])
    t.throws(() => normaliseHost(bad, 'domain'), { message: /^domain /, instanceOf: Error }, JSON.stringify(bad));
});

test('the registry maps a Host to its domain, the publicUrl’s host to the default, and anything else to none', (t) => {
  const registry = new DomainRegistry('https://s.example', [domain(0, ''), domain(3, 's2.example', 'http')]);
  t.is(registry.domainOfHost('s.example'), 0);
  t.is(registry.domainOfHost('S2.example:80'), 3);
  t.is(registry.domainOfHost('s2.example:80'), 3, 'the same answer from the memo');
  t.is(registry.domainOfHost('s3.example'), undefined);
  t.is(registry.domainOfRequest(['User-Agent', 'x', 'HOST', 's2.example']), 3);
  t.is(registry.domainOfRequest(['User-Agent', 'x']), undefined, 'no Host at all');
  t.is(registry.shortUrl({ domain: 0, code: 'abc' }), 'https://s.example/abc');
  t.is(registry.shortUrl({ domain: 3, code: 'abc' }), 'http://s2.example/abc');
  t.is(registry.idOf(undefined), 0);
  t.is(registry.idOf('S2.Example.'), 3);
  t.throws(() => registry.idOf('s3.example'), { message: /domain "s3\.example" is not one of kurz's domains/ });
  t.true(registry.several());

  // After a reload the memo is forgotten: a removed domain's Host is unknown at once.
  registry.load([domain(0, '')]);
  t.is(registry.domainOfHost('s2.example:80'), undefined);
  t.false(registry.several());
});

test('after thousands of unknown Hosts (the memo starts again past its bound) a known one still answers right', (t) => {
  const registry = new DomainRegistry('https://s.example', [domain(0, ''), domain(3, 's2.example')]);
  for (let i = 0; i < 5000; i++) t.is(registry.domainOfHost(`random-${i}.example`), undefined);
  t.is(registry.domainOfHost('s2.example'), 3);
});

const ADMIN: Actor = { userId: 1, name: 'admin', role: 'admin', via: { kind: 'session' } };
const ANA: Actor = { userId: 2, name: 'ana', role: 'member', via: { kind: 'key', key: 'k' } };
const BO: Actor = { userId: 3, name: 'bo', role: 'member', via: { kind: 'cli' } };
const STRANGER = anonymous('192.0.2.1');

for (const [what, users, actor, may] of [
  ['open to everyone: a member', null, BO, true],
  ['open to everyone: anyone without an account', undefined, STRANGER, true],
  ['limited: a user it names', new Set([2]), ANA, true],
  ['limited: a user it does not name', new Set([2]), BO, false],
  ['limited: an admin it does not name', new Set([2]), ADMIN, true],
  ['admins only: a member', new Set<number>(), ANA, false],
  ['admins only: an admin', new Set<number>(), ADMIN, true],
  // The anonymous creator's links belong to the first admin, whose id a list may name: still not them.
  ['limited to the first admin: anyone without an account', new Set([1]), STRANGER, false],
] as const) {
  test(`mayUse: ${what}`, (t) => {
    t.is(mayUse(actor, users), may);
  });
}

test('the registry answers who may use each domain from memory, and offers each actor only those', (t) => {
  const registry = new DomainRegistry('https://s.example', [
    domain(0, ''),
    { ...domain(1, 'club.example'), users: [{ id: 2, name: 'ana' }] },
    { ...domain(2, 'staff.example'), users: [] },
    domain(3, 'open.example'),
  ]);
  t.deepEqual(
    registry.usableBy(ANA).map((d) => d.host),
    ['s.example', 'club.example', 'open.example'],
  );
  t.deepEqual(
    registry.usableBy(BO).map((d) => d.host),
    ['s.example', 'open.example'],
  );
  t.is(registry.usableBy(ADMIN).length, 4);
  t.notThrows(() => registry.refuseClosed(ANA, 1));
  const refused = t.throws(() => registry.refuseClosed(BO, 1), { instanceOf: AppError });
  t.like(refused, {
    code: 'forbidden',
    field: 'domain',
    message: 'domain "club.example" is not open to you: an admin names the users who may create links on it',
  });
  registry.load([domain(0, ''), domain(1, 'club.example')]);
  t.true(registry.mayUse(BO, 1), 'a reload opens it');
});

for (const [users, text] of [
  [null, 'everyone'],
  [[], 'admins only'],
  [
    [
      { id: 2, name: 'ana' },
      { id: 3, name: 'bo' },
    ],
    'ana, bo',
  ],
] as const) {
  test(`usersText: ${text}`, (t) => {
    t.is(usersText(users), text);
  });
}
