import test from 'ava';
import { readSqlDump, type SqlDialect, type SqlValue } from '../../src/transfer/sql-dump.ts';

/** The rows of table t in a dump, as [line, values]. */
function rowsOf(text: string, dialect: SqlDialect = 'mysql'): Array<[number, SqlValue[]]> {
  return (readSqlDump(text, dialect).get('t')?.rows ?? []).map((r) => [r.line, r.values]);
}

const READ: Array<[string, SqlDialect, string, Array<[number, SqlValue[]]>]> = [
  [
    'MySQL escapes',
    'mysql',
    String.raw`INSERT INTO t VALUES ('it\'s','a\\b','x\ny','nul\0','tab\t','q\"','doubled''');`,
    [[1, ["it's", 'a\\b', 'x\ny', 'nul\0', 'tab\t', 'q"', "doubled'"]]],
  ],
  ['NULL, numbers and signs', 'mysql', 'INSERT INTO t VALUES (NULL,0,-12,+3,1.5e3,.5);', [[1, [null, '0', '-12', '3', '1.5e3', '.5']]]],
  [
    'extended inserts, each row with its line',
    'mysql',
    "INSERT INTO `t` VALUES (1,'a'),\n(2,'b'),(3,'c\nd'),\n(4,'e');",
    [
      [1, ['1', 'a']],
      [2, ['2', 'b']],
      [2, ['3', 'c\nd']],
      [4, ['4', 'e']],
    ],
  ],
  [
    'a backslash is plain in standard SQL',
    'standard',
    String.raw`INSERT INTO t VALUES ('a\b', 'it''s', E'x\ny');`,
    [[1, ['a\\b', "it's", 'x\ny']]],
  ],
  [
    'sqlite3 .dump newlines and a blob',
    'standard',
    "INSERT INTO t VALUES(replace('a\\nb','\\n',char(10)),X'00FF',char(233));",
    [[1, ['a\nb', '00ff', 'é']]],
  ],
  [
    'a schema, quoted names, comments and other statements',
    'standard',
    'SET x = 1;\n-- a comment\n/* more */ INSERT INTO "public"."t" ("b", a) VALUES (2, 1);\nCOMMIT;',
    [[3, ['2', '1']]],
  ],
  [
    'INSERT columns in another order than CREATE TABLE',
    'standard',
    "CREATE TABLE t (a int, b text, PRIMARY KEY (a));\nINSERT INTO t (b, a) VALUES ('x', 1);",
    [[2, ['1', 'x']]],
  ],
  ['booleans', 'standard', 'INSERT INTO t VALUES (true, FALSE);', [[1, ['1', '0']]]],
  ['a semicolon and a comment marker inside a string', 'mysql', "INSERT INTO t VALUES ('a;b -- c /* d */');", [[1, ['a;b -- c /* d */']]]],
];
for (const [name, dialect, text, rows] of READ) {
  test(`reads ${name}`, (t) => {
    t.deepEqual(rowsOf(text, dialect), rows);
  });
}

test('CREATE TABLE gives the column names, keys and constraints left out', (t) => {
  const dump =
    "CREATE TABLE `t` (\n  `keyword` varchar(100) NOT NULL DEFAULT '',\n  `url` text,\n  PRIMARY KEY (`keyword`),\n  KEY `url_idx` (`url`(30))\n) ENGINE=InnoDB;";
  t.deepEqual(readSqlDump(dump, 'mysql').get('t')?.columns, ['keyword', 'url']);
});

const REFUSED: Array<[string, string, string]> = [
  ['an unclosed string', "INSERT INTO t VALUES (1,\n'abc);", 'line 2: a string is never closed'],
  ['an expression', 'INSERT INTO t VALUES (1, NOW());', 'line 1: cannot read the value "NOW": only literals and NULL are read'],
  ['a missing parenthesis', "INSERT INTO t VALUES (1, 'a';", 'line 1: expected ")" before ";"'],
  ['INSERT … SELECT', 'INSERT INTO t SELECT * FROM u;', 'line 1: expected VALUES: only INSERT … VALUES is read'],
  [
    'a row of the wrong width',
    'CREATE TABLE t (a int, b int);\nINSERT INTO t VALUES (1);',
    'line 2: 1 values for the 2 columns of the table',
  ],
  ['an unclosed comment', '/* never\nclosed INSERT INTO t VALUES (1);', 'line 1: a /* comment */ is never closed'],
  [
    'COPY data',
    'COPY public.t (a) FROM stdin;\n1\n\\.\n',
    'line 1: the dump holds its rows as COPY data; dump them as INSERTs instead (pg_dump --inserts)',
  ],
];
for (const [name, text, message] of REFUSED) {
  test(`refuses ${name}, naming the line`, (t) => {
    t.throws(() => readSqlDump(text, 'mysql'), { message });
  });
}
