import { AppError } from '../core/errors.ts';

/** A value as a dump writes it: text, a number (kept as its text, so nothing is rounded), or NULL. */
export type SqlValue = string | null;

/** A table's rows as a dump or a database file holds them: each row with the line its values start on. */
export interface SqlTable {
  /** Column names in order; null when the dump names none (no CREATE TABLE, no column list). */
  columns: string[] | null;
  rows: Array<{ line: number; values: SqlValue[] }>;
}

/** The tables of a dump (or a database file), by name in lower case, without a schema ("public.links" is "links"). */
export type SqlTables = ReadonlyMap<string, SqlTable>;

/**
 * How a dump writes strings: `mysql` (mysqldump: backslash escapes, '' too, `quoted` names), `standard`
 * (sqlite3 .dump and pg_dump --inserts: only '' escapes a quote; pg's E'…' strings take backslash escapes).
 */
export type SqlDialect = 'mysql' | 'standard';

type Token =
  | { kind: 'word'; text: string; line: number }
  | { kind: 'name'; text: string; line: number }
  | { kind: 'string'; text: string; line: number }
  | { kind: 'number'; text: string; line: number }
  | { kind: 'punct'; text: string; line: number };

/**
 * Reads the CREATE TABLE and INSERT statements of an SQL dump into tables: `INSERT INTO t [(cols)] VALUES
 * (…),(…);` as mysqldump (extended inserts), sqlite3's .dump and pg_dump --inserts / --column-inserts write
 * them. Every other statement (SET, LOCK TABLES, ALTER, COPY…) and comment is passed over. Values are
 * literals, NULL, X'…' blobs (as hex text), or the replace(…, char(10)) sqlite3 writes for newlines. Throws
 * AppError('invalid') naming the line of anything else, so a dump is never half read.
 */
export function readSqlDump(text: string, dialect: SqlDialect): Map<string, SqlTable> {
  const copy = /^COPY [^\n]* FROM stdin;$/m.exec(text);
  if (copy) {
    const line = text.slice(0, copy.index).split('\n').length;
    throw new AppError('invalid', `line ${line}: the dump holds its rows as COPY data; dump them as INSERTs instead (pg_dump --inserts)`);
  }
  const tokens = tokenize(text, dialect);
  const tables = new Map<string, SqlTable>();
  const tableOf = (name: string) => {
    let table = tables.get(name);
    if (!table) tables.set(name, (table = { columns: null, rows: [] }));
    return table;
  };
  let i = 0;
  const peek = () => tokens[i];
  const fail = (message: string, at = tokens[i] ?? tokens[tokens.length - 1]): never => {
    throw new AppError('invalid', `line ${at?.line ?? 1}: ${message}`);
  };
  const expect = (text: string) => {
    const token = tokens[i];
    if (token?.kind !== 'punct' || token.text !== text) fail(`expected "${text}"${token ? ` before ${describe(token)}` : ' at the end'}`);
    i++;
  };
  const isWord = (word: string, at = i) => {
    const token = tokens[at];
    return token?.kind === 'word' && token.text.toUpperCase() === word;
  };
  const skipStatement = () => {
    while (i < tokens.length && !(tokens[i]?.kind === 'punct' && tokens[i]?.text === ';')) i++;
    i++;
  };
  /** A table name, maybe with a schema ("public"."links"): the last part, lower-cased. */
  const tableName = (): string => {
    let name = nameOf(tokens[i]) ?? fail('expected a table name');
    i++;
    while (peek()?.kind === 'punct' && peek()?.text === '.') {
      i++;
      name = nameOf(tokens[i]) ?? fail('expected a table name after "."');
      i++;
    }
    return name.toLowerCase();
  };
  const value = (): SqlValue => {
    const token = tokens[i] ?? fail('a row ends too early');
    i++;
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') return token.text;
    if (token.kind === 'punct' && (token.text === '-' || token.text === '+')) {
      const number = tokens[i];
      if (number?.kind !== 'number') return fail(`expected a number after "${token.text}"`, token);
      i++;
      return token.text === '-' ? `-${number.text}` : number.text;
    }
    if (token.kind === 'word') {
      const word = token.text.toUpperCase();
      if (word === 'NULL') return null;
      if (word === 'TRUE' || word === 'FALSE') return word === 'TRUE' ? '1' : '0';
      if (word === 'REPLACE' || word === 'CHAR') return call(word, token);
    }
    return fail(`cannot read the value ${describe(token)}: only literals and NULL are read`, token);
  };
  // sqlite3's .dump writes a string with newlines as replace('a\nb','\n',char(10)).
  const call = (word: string, token: Token): string => {
    expect('(');
    const args: SqlValue[] = [value()];
    while (peek()?.kind === 'punct' && peek()?.text === ',') {
      i++;
      args.push(value());
    }
    expect(')');
    if (word === 'CHAR') {
      if (!args.every((a) => a !== null && /^\d{1,7}$/.test(a) && Number(a) <= 0x10ffff)) fail('char() takes code points', token);
      return String.fromCodePoint(...args.map(Number));
    }
    const [text, from, to] = args;
    if (args.length !== 3 || text == null || from == null || to == null) return fail('replace() takes three strings', token);
    return text.replaceAll(from, to);
  };

  while (i < tokens.length) {
    const start = tokens[i]!;
    if (start.kind === 'punct' && start.text === ';') {
      i++;
      continue;
    }
    if (isWord('CREATE') && isWord('TABLE', i + 1)) {
      i += 2;
      if (isWord('IF')) i += 3; // IF NOT EXISTS
      const name = tableName();
      if (peek()?.kind === 'punct' && peek()?.text === '(') tableOf(name).columns = columnsOfCreate();
      skipStatement();
      continue;
    }
    if (isWord('INSERT')) {
      i++;
      if (isWord('IGNORE')) i++;
      if (!isWord('INTO')) fail('expected INTO after INSERT');
      i++;
      const table = tableOf(tableName());
      let columns: string[] | null = null;
      if (peek()?.kind === 'punct' && peek()?.text === '(') {
        i++;
        columns = [];
        for (;;) {
          columns.push((nameOf(tokens[i]) ?? fail('expected a column name')).toLowerCase());
          i++;
          if (peek()?.kind === 'punct' && peek()?.text === ',') i++;
          else break;
        }
        expect(')');
        if (table.columns === null) table.columns = columns;
      }
      if (!isWord('VALUES')) fail('expected VALUES: only INSERT … VALUES is read');
      i++;
      for (;;) {
        const open = tokens[i];
        expect('(');
        let values: SqlValue[] = [value()];
        while (peek()?.kind === 'punct' && peek()?.text === ',') {
          i++;
          values.push(value());
        }
        expect(')');
        // A row's values in the table's column order, whatever order this INSERT names them in.
        if (columns !== null && table.columns !== null && columns !== table.columns)
          values = reorder(columns, table.columns, values, open!);
        else if (table.columns !== null && values.length !== table.columns.length)
          fail(`${values.length} values for the ${table.columns.length} columns of the table`, open);
        table.rows.push({ line: open!.line, values });
        if (peek()?.kind === 'punct' && peek()?.text === ',') i++;
        else break;
      }
      if (i < tokens.length) expect(';');
      continue;
    }
    skipStatement();
  }
  return tables;

  /** The column names of CREATE TABLE's parenthesis: each item's first name, keys and constraints left out. */
  function columnsOfCreate(): string[] {
    expect('(');
    const columns: string[] = [];
    let depth = 0;
    let first = true;
    while (i < tokens.length) {
      const token = tokens[i]!;
      i++;
      if (token.kind === 'punct' && token.text === '(') depth++;
      else if (token.kind === 'punct' && token.text === ')') {
        if (depth === 0) return columns;
        depth--;
      } else if (token.kind === 'punct' && token.text === ',' && depth === 0) first = true;
      else if (first) {
        first = false;
        const constraint =
          token.kind === 'word' && /^(PRIMARY|KEY|UNIQUE|CONSTRAINT|FOREIGN|INDEX|CHECK|FULLTEXT|SPATIAL)$/i.test(token.text);
        const name = nameOf(token);
        if (!constraint && name !== undefined) columns.push(name.toLowerCase());
      }
    }
    return fail('CREATE TABLE ends too early', tokens[i - 1]);
  }

  function reorder(given: string[], columns: string[], values: SqlValue[], at: Token): SqlValue[] {
    if (given.length !== values.length) fail(`${values.length} values for ${given.length} columns`, at);
    return columns.map((column) => {
      const index = given.indexOf(column);
      return index === -1 ? null : (values[index] ?? null);
    });
  }
}

/** A table's rows as records by column name; refuses the table when it lacks one of `required`. */
export function recordsOf(
  table: SqlTable,
  name: string,
  fallback: readonly string[],
  required: readonly string[],
): Array<{ line: number; row: Record<string, SqlValue> }> {
  const columns = table.columns ?? [...fallback];
  const missing = required.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw new AppError('invalid', `the table ${name} has no column ${missing.join(', ')}`);
  return table.rows.map(({ line, values }) => {
    if (values.length !== columns.length)
      throw new AppError('invalid', `line ${line}: ${values.length} values for the ${columns.length} columns of ${name}`);
    return { line, row: Object.fromEntries(columns.map((c, k) => [c, values[k] ?? null])) };
  });
}

function nameOf(token: Token | undefined): string | undefined {
  return token?.kind === 'name' || token?.kind === 'word' ? token.text : undefined;
}

function describe(token: Token): string {
  const text = token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text;
  return token.kind === 'string' ? `'${text}'` : `"${text}"`;
}

const MYSQL_ESCAPES: Record<string, string> = { '0': '\0', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\x1a' };
const PLAIN_RUN = /[^'\n]*/y;
const PLAIN_RUN_ESCAPED = /[^'\\\n]*/y;
const NUMBER = /(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/y;
const WORD = /[A-Za-z0-9_$]+/y;
const WORD_START = /[A-Za-z_$]/;

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

function tokenize(text: string, dialect: SqlDialect): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  const fail = (message: string, at = line): never => {
    throw new AppError('invalid', `line ${at}: ${message}`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\ufeff') i++;
    else if ((c === '-' && text[i + 1] === '-') || c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const start = line;
      const end = text.indexOf('*/', i + 2);
      if (end === -1) fail('a /* comment */ is never closed', start);
      for (let k = i; k < end; k++) if (text[k] === '\n') line++;
      i = end + 2;
    } else if (c === "'" || ((c === 'E' || c === 'e' || c === 'X' || c === 'x') && text[i + 1] === "'")) {
      const start = line;
      const prefix = c === "'" ? '' : c.toUpperCase();
      const backslashes = dialect === 'mysql' || prefix === 'E';
      i += prefix === '' ? 1 : 2;
      let value = '';
      const plain = backslashes ? PLAIN_RUN_ESCAPED : PLAIN_RUN;
      for (;;) {
        // Runs of ordinary characters are taken at once; only quotes, backslashes and line breaks stop it.
        plain.lastIndex = i;
        const run = plain.exec(text)![0];
        value += run;
        i += run.length;
        if (i >= text.length) fail('a string is never closed', start);
        const d = text[i]!;
        if (d === "'" && text[i + 1] === "'") {
          value += "'";
          i += 2;
        } else if (d === "'") {
          i++;
          break;
        } else if (d === '\\') {
          const e = text[i + 1] ?? fail('a string ends in a backslash', start);
          value += MYSQL_ESCAPES[e] ?? e;
          if (e === '\n') line++;
          i += 2;
        } else {
          line++;
          value += d;
          i++;
        }
      }
      tokens.push({ kind: 'string', text: prefix === 'X' ? value.toLowerCase() : value, line: start });
    } else if (c === '`' || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end === -1 || text.slice(i + 1, end).includes('\n')) fail(`a ${c}name${c} is never closed`);
      tokens.push({ kind: 'name', text: text.slice(i + 1, end), line });
      i = end + 1;
    } else if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? ''))) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text)![0];
      tokens.push({ kind: 'number', text: number, line });
      i += number.length;
    } else if (WORD_START.test(c)) {
      WORD.lastIndex = i;
      const word = WORD.exec(text)![0];
      tokens.push({ kind: 'word', text: word, line });
      i += word.length;
    } else {
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  return tokens;
}
