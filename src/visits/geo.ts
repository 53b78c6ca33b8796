import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { Reader, type Response } from 'maxmind';

/** Finds the country (ISO 3166-1 alpha-2, upper case) of a client address; null when unknown. */
export type CountryOf = (address: string) => string | null;

/** Finds the city (its English name, as the database spells it) of a client address; null when unknown or not a city database. */
export type CityOf = (address: string) => string | null;

/** What one GeoIP database tells of a client address. */
export interface Geo {
  country: CountryOf;
  city: CityOf;
}

/**
 * The fields that name a country in the databases kurz reads: GeoIP2/GeoLite2 and DB-IP nest it, IPinfo lite
 * is flat; and a city database's city (GeoLite2-City, DB-IP City: `city.names.en`).
 */
interface CountryRecord {
  country?: { iso_code?: unknown } | string;
  registered_country?: { iso_code?: unknown };
  country_code?: unknown;
  city?: { names?: { en?: unknown } };
}

/** What an address is found to be: its country and city, null for unknown. */
interface Place {
  country: string | null;
  city: string | null;
}

const NOWHERE: Place = Object.freeze({ country: null, city: null });

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;
const ISO_CODE = /^[A-Za-z]{2}$/;
const CACHE_SIZE = 4096;
const MAX_CITY = 200;

/**
 * Opens a MaxMind-format database (.mmdb: GeoLite2/GeoIP2 Country or City, DB-IP, IPinfo-lite country) for
 * country lookups. Throws an Error whose message names the file when it cannot be read or is not an .mmdb.
 */
export function openCountryDatabase(path: string): CountryOf {
  return openGeoDatabase(path).country;
}

/**
 * Opens a MaxMind-format database for country and city lookups through one reader and one cache of the
 * addresses last asked about. A country database answers no city. Throws as openCountryDatabase.
 */
export function openGeoDatabase(path: string): Geo {
  const reader = openReader(path);
  const ipv4Only = reader.metadata.ipVersion === 4;
  const cache = new LRUCache<string, Place>({ max: CACHE_SIZE });
  const placeOf = (address: string): Place => {
    // Node reports IPv4 clients of a dual-stack socket as ::ffff:a.b.c.d
    const ip = MAPPED_IPV4.exec(address)?.[1] ?? address;
    const version = isIP(ip);
    if (version === 0 || (version === 6 && ipv4Only)) return NOWHERE;
    let place = cache.get(ip);
    if (place === undefined) {
      const record = lookup(reader, ip);
      place = record === null ? NOWHERE : { country: countryIn(record), city: cityIn(record) };
      cache.set(ip, place);
    }
    return place;
  };
  return { country: (address) => placeOf(address).country, city: (address) => placeOf(address).city };
}

/** No database configured: every address is of no known country. */
export const noCountry: CountryOf = () => null;

/** No database configured: no address is of a known country or city. */
export const noGeo: Geo = { country: noCountry, city: () => null };

function openReader(path: string): Reader<Response> {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch (err) {
    throw new Error(`cannot read the country database ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (file.subarray(0, 2).equals(GZIP_MAGIC)) throw new Error(`the country database ${path} is compressed: unpack the .mmdb file first`);
  if (file.lastIndexOf(METADATA_MARKER) < 0) throw new Error(`the country database ${path} is not a MaxMind DB (.mmdb) file`);
  try {
    return new Reader<Response>(file);
  } catch (err) {
    throw new Error(`the country database ${path} is not a valid MaxMind DB (.mmdb) file: ${(err as Error).message}`, { cause: err });
  }
}

function lookup(reader: Reader<Response>, ip: string): CountryRecord | null {
  try {
    return reader.get(ip) as CountryRecord | null;
  } catch {
    // a damaged record costs one visit its country, never the redirect
    return null;
  }
}

function cityIn(record: CountryRecord): string | null {
  const name = typeof record.city === 'object' ? record.city?.names?.en : undefined;
  return typeof name === 'string' && name !== '' && name.length <= MAX_CITY ? name : null;
}

function countryIn(record: CountryRecord | null): string | null {
  if (record === null) return null;
  const nested = typeof record.country === 'object' ? record.country.iso_code : undefined;
  for (const code of [nested, record.registered_country?.iso_code, record.country_code]) {
    if (typeof code === 'string' && ISO_CODE.test(code)) return code.toUpperCase();
  }
  return null;
}
