import test from 'ava';
import { hasPassword, redactUrl, withoutUrlSecrets } from '../../src/core/redact.ts';

// What logs, errors and /settings show of a URL: never its password, wherever it is written (issue 23).
const URLS: Array<[string, string]> = [
  ['postgres://kurz:s3cret@db.example.com:5432/kurz', 'postgres://kurz:***@db.example.com:5432/kurz'],
  ['postgresql://kurz:p%40ss@db.example.com/kurz', 'postgresql://kurz:***@db.example.com/kurz'],
  ['postgres://kurz@db.example.com/kurz?password=s3cret', 'postgres://kurz@db.example.com/kurz?password=***'],
  ['postgres://db.example.com/kurz?sslmode=require&PASSWORD=s3cret', 'postgres://db.example.com/kurz?sslmode=require&PASSWORD=***'],
  ['postgres://kurz:a@db.example.com/kurz?sslpassword=s3cret', 'postgres://kurz:***@db.example.com/kurz?sslpassword=***'],
  ['postgres://kurz@db.example.com:5432/kurz', 'postgres://kurz@db.example.com:5432/kurz'],
  ['postgres:///kurz?host=/run/postgresql', 'postgres:///kurz?host=/run/postgresql'],
  // A URL that does not parse: its scheme and host, or only its scheme when where the host starts is unsure.
  ['postgres://kurz:s3cret@db.example.com:99999/kurz', 'postgres://db.example.com:99999/…'],
  ['postgres://kurz:s3cret@db example/kurz', 'postgres:…'],
  ['postgres://kurz:se/cret@db.example.com:5432/kurz', 'postgres:…'],
  ['postgres://kurz:se/cret@db example/kurz', 'postgres:…'],
  ['postgres:kurz:s3cret@db.example.com/kurz', 'postgres:…'],
  ['kurz:s3cret at db.example.com', 'kurz:…'],
  ['not a url at all', '(not a URL)'],
];
for (const [url, shown] of URLS) {
  test(`redactUrl(${url}) is ${shown}`, (t) => {
    t.is(redactUrl(url), shown);
  });
}

test('withoutUrlSecrets hides the URL and its password, however spelled, inside a message', (t) => {
  const url = 'postgres://kurz:p%40ss@db.example.com/kurz?password=other';
  t.is(
    withoutUrlSecrets(`cannot use ${url}: p@ss refused, and other, and p%40ss`, url),
    'cannot use postgres://kurz:***@db.example.com/kurz?password=***: *** refused, and ***, and ***',
  );
  t.is(withoutUrlSecrets('ECONNREFUSED 127.0.0.1:5432', 'postgres://db.example.com/kurz'), 'ECONNREFUSED 127.0.0.1:5432');
});

const PASSWORDS: Array<[string, boolean]> = [
  ['postgres://kurz:s3cret@db.example.com/kurz', true],
  ['postgres://kurz@db.example.com/kurz?password=s3cret', true],
  ['postgres://kurz@db.example.com/kurz', false],
  ['postgresql://localhost/kurz?sslmode=require', false],
  ['postgres:///kurz?host=/run/postgresql', false],
  ['postgres://kurz:s3cret@db example/kurz', true],
  ['postgres:kurz:s3cret@db.example.com', true],
];
for (const [url, expected] of PASSWORDS) {
  test(`hasPassword(${url}) is ${expected}`, (t) => {
    t.is(hasPassword(url), expected);
  });
}
