import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { Reader } from 'maxmind';
import { noCountry, noGeo, openCountryDatabase, openGeoDatabase } from '../../src/visits/geo.ts';
import { buildCountryMmdb } from '../support/mmdb.ts';

const NETWORKS = [
  { network: '192.0.2.0/24', country: 'DE' },
  { network: '10.1.0.0/16', country: 'FR' },
  { network: '2001:db8::/32', country: 'JP' },
];

const dir = mkdtempSync(join(tmpdir(), 'kurz-geo-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

function databaseFile(name: string, contents: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}

const countryOf = openCountryDatabase(databaseFile('countries.mmdb', buildCountryMmdb(NETWORKS)));
// Without the ::ffff:0:0/96 alias only stripping the prefix finds an IPv4-mapped address.
const unaliased = openCountryDatabase(databaseFile('unaliased.mmdb', buildCountryMmdb(NETWORKS, { ipv4Mapped: false })));

const LOOKUPS: Array<[string, string | null]> = [
  ['192.0.2.0', 'DE'],
  ['192.0.2.255', 'DE'],
  ['192.0.1.255', null],
  ['192.0.3.0', null],
  ['10.1.0.1', 'FR'],
  ['10.1.255.255', 'FR'],
  ['10.0.255.255', null],
  ['10.2.0.0', null],
  ['2001:db8::1', 'JP'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'JP'],
  ['2001:DB8:0:0:0:0:0:1', 'JP'],
  ['2001:db9::1', null],
  ['2001:db7:ffff::1', null],
  ['::ffff:192.0.2.7', 'DE'],
  ['::FFFF:10.1.2.3', 'FR'],
  ['::ffff:192.0.3.7', null],
  ['::1', null],
  ['127.0.0.1', null],
  ['', null],
  ['junk', null],
  ['192.0.2', null],
  ['192.0.2.256', null],
  ['::ffff:192.0.2', null],
  ['2001:db8::1::2', null],
  ['192.0.2.7, 10.1.2.3', null],
];
for (const [address, country] of LOOKUPS) {
  test(`the country of ${JSON.stringify(address)} is ${country}`, (t) => {
    t.is(countryOf(address), country);
    t.is(countryOf(address), country, 'and again, from the cache');
    t.is(unaliased(address), country, 'without the IPv4-mapped alias in the database');
  });
}

const CITIES = [
  { network: '192.0.2.0/24', country: 'DE', city: 'Berlin' },
  { network: '192.0.2.128/25', country: 'DE', city: 'München' },
  { network: '10.1.0.0/16', country: 'FR' },
  { network: '2001:db8::/32', country: 'JP', city: 'Tokyo' },
];
const cityDatabase = databaseFile('cities.mmdb', buildCountryMmdb(CITIES));

test('a city database answers the country and the city (city.names.en) through one reader; a network without one has none', (t) => {
  const geo = openGeoDatabase(cityDatabase);
  const table: Array<[string, string | null, string | null]> = [
    ['192.0.2.1', 'DE', 'Berlin'],
    ['192.0.2.200', 'DE', 'München'],
    ['::ffff:192.0.2.200', 'DE', 'München'],
    ['10.1.2.3', 'FR', null],
    ['2001:db8::7', 'JP', 'Tokyo'],
    ['192.0.3.1', null, null],
    ['junk', null, null],
  ];
  for (const [address, country, city] of table) {
    t.is(geo.city(address), city, address);
    t.is(geo.country(address), country, address);
    t.is(geo.city(address), city, `${address}, from the cache`);
  }
  t.is(new Reader(readFileSync(cityDatabase)).metadata.databaseType, 'kurz-test-City');
});

test('a country database knows no city; without a database no address has one', (t) => {
  const geo = openGeoDatabase(databaseFile('countries-only.mmdb', buildCountryMmdb(NETWORKS)));
  t.is(geo.country('192.0.2.1'), 'DE');
  t.is(geo.city('192.0.2.1'), null);
  t.is(noGeo.city('192.0.2.1'), null);
  t.is(noGeo.country('192.0.2.1'), null);
});

test('the test database is one the maxmind Reader reads, with the metadata the spec requires', (t) => {
  const reader = new Reader(buildCountryMmdb(NETWORKS));
  t.like(reader.metadata, {
    binaryFormatMajorVersion: 2,
    binaryFormatMinorVersion: 0,
    databaseType: 'kurz-test-Country',
    ipVersion: 6,
    recordSize: 24,
    languages: ['en'],
    description: { en: 'kurz test country database' },
  });
  t.deepEqual(reader.get('192.0.2.1'), { country: { iso_code: 'DE' } });
  t.is(reader.get('192.0.3.1'), null);
});

test('a file that is not an mmdb is refused with its name', (t) => {
  const path = databaseFile('not-a-database.mmdb', Buffer.from('country,network\nDE,192.0.2.0/24\n'));
  const err = t.throws(() => openCountryDatabase(path));
  t.is(err?.message, `the country database ${path} is not a MaxMind DB (.mmdb) file`);
});

test('a compressed mmdb is refused with its name and what to do', (t) => {
  const path = databaseFile('countries.mmdb.gz', gzipSync(buildCountryMmdb(NETWORKS)));
  const err = t.throws(() => openCountryDatabase(path));
  t.is(err?.message, `the country database ${path} is compressed: unpack the .mmdb file first`);
});

test('a missing file is refused with its name', (t) => {
  const path = join(dir, 'missing.mmdb');
  const err = t.throws(() => openCountryDatabase(path));
  t.true(err?.message.startsWith(`cannot read the country database ${path}: ENOENT`), err?.message);
});

test('without a database no address has a country', (t) => {
  t.is(noCountry('192.0.2.1'), null);
  t.is(noCountry('2001:db8::1'), null);
});
