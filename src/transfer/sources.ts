import { isUtf8 } from 'node:buffer';
import { AppError } from '../core/errors.ts';
import { parseRecords, peerRecord, type TransferFormat } from './format.ts';
import type { SqlTables } from './sql-dump.ts';
import type { NumberedRecord } from './records.ts';
import { readBitly, type ColumnMap } from './sources/bitly.ts';
import { kuttDumpTables, readKutt, SQLITE_HEADER } from './sources/kutt.ts';
import type { PeerFile, PeerSkip } from './sources/peer-link.ts';
import { readShlink } from './sources/shlink.ts';
import { readUrlList } from './sources/url-list.ts';
import { readYourls } from './sources/yourls.ts';

/** What an import reads: kurz's own export, another shortener's file, or a plain list of URLs. */
export const SOURCES = ['kurz', 'yourls', 'shlink', 'kutt', 'bitly', 'csv'] as const;
export type ImportSource = (typeof SOURCES)[number];

/** A file to import, as the command line or the upload gives it. */
export interface ImportFile {
  source: ImportSource;
  /** How the person named it (a path, an upload's file name): messages about the whole file name it. */
  name: string;
  bytes: Buffer;
  /** kurz's own export: CSV or NDJSON. */
  format: TransferFormat;
  /** Bitly: which column holds which field. */
  map: ColumnMap;
}

/** A file read into checked records, with the lines the source has that are not imported, and notes. */
export interface ReadFile {
  records: NumberedRecord[];
  skips: PeerSkip[];
  notes: string[];
}

/** Reads a SQLite database file (read-only, from its bytes: the user's file is never opened for writing) into its tables. */
export type SqliteReader = (bytes: Buffer) => SqlTables;

export interface ReadDeps {
  reserved: ReadonlySet<string>;
  domainOf: (host: unknown) => number;
  now: Date;
  readSqlite: SqliteReader;
}

/**
 * Reads a whole file of `source` into records checked as kurz's own export's are (code, URL, tags, title,
 * domain: one this kurz lacks refuses the file). Throws AppError('invalid') naming the line of the first
 * problem, so a file is imported whole or not at all.
 */
export function readImportFile(file: ImportFile, deps: ReadDeps): ReadFile {
  if (file.source === 'kutt' && file.bytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) {
    return checked(readKutt(deps.readSqlite(file.bytes)), deps);
  }
  // Decoding would turn bytes that are not UTF-8 into U+FFFD, and that is what would be imported.
  if (!isUtf8(file.bytes)) throw new AppError('invalid', `the file ${file.name} is not UTF-8 text: save it as UTF-8 and import it again`);
  const text = file.bytes.toString('utf8');
  switch (file.source) {
    case 'kurz':
      return { records: parseRecords(text, file.format, deps.reserved, deps.domainOf), skips: [], notes: [] };
    case 'yourls':
      return checked(readYourls(text), deps);
    case 'shlink':
      return checked(readShlink(text), deps);
    case 'kutt':
      return checked(readKutt(kuttDumpTables(text)), deps);
    case 'bitly':
      return checked(readBitly(text, file.map), deps);
    case 'csv':
      return checked(readUrlList(text), deps);
  }
}

function checked(file: PeerFile, deps: ReadDeps): ReadFile {
  const seen = new Map<string, number>();
  const skips = [...file.skips];
  const records = file.links.flatMap((link) => {
    const record = peerRecord(link, deps.reserved, deps.domainOf, deps.now);
    if (!('record' in record)) {
      skips.push(record);
      return [];
    }
    // Within one file a code named twice is the file's mistake, not something kurz has.
    if (!record.generated) {
      const key = `${record.record.domain} ${record.record.code}`;
      const first = seen.get(key);
      if (first !== undefined)
        throw new AppError('invalid', `line ${link.line}: code "${record.record.code}" is on line ${first} too`, 'code');
      seen.set(key, link.line);
    }
    return [record];
  });
  return { records, skips: skips.sort((a, b) => a.line - b.line), notes: file.notes };
}
