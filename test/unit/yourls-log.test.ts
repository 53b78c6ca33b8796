import test from 'ava';
import { readYourls } from '../../src/transfer/sources/yourls.ts';

// How the clicks of YOURLS' log are read for a link's figures: time, referrer host, country.

const URL_ROW =
  "INSERT INTO `yourls_url` VALUES ('a','https://a.example/','t','2024-01-01 00:00:00','ip',9),('b','https://b.example/',NULL,'2024-01-01 00:00:00','ip',0);";

test("each log row of a link is one visit: its time in UTC, its referrer's host, and a country only when it is two letters", (t) => {
  const log = [
    "INSERT INTO `yourls_log` VALUES (1,'2024-03-02 08:15:00','a','direct','UA','ip','fr'),",
    "(2,'2024-03-03 10:00:00','a','https://www.News.example/path?q=1','UA','ip',''),",
    "(3,'2024-03-04 00:00:00','a','javascript:alert(1)','UA','ip','1A'),",
    "(4,'2024-03-05 00:00:00','a','','UA','ip',' DE '),",
    "(5,'2024-03-06 00:00:00','gone','direct','UA','ip','US');",
  ].join('\n');
  const { links, notes } = readYourls(`${URL_ROW}\n${log}\n`);
  t.deepEqual(notes, []);
  t.deepEqual(links.find((l) => l.code === 'a')?.visits, [
    { at: Date.UTC(2024, 2, 2, 8, 15), referrer: null, country: 'FR' },
    { at: Date.UTC(2024, 2, 3, 10), referrer: 'news.example', country: null },
    { at: Date.UTC(2024, 2, 4), referrer: null, country: null },
    { at: Date.UTC(2024, 2, 5), referrer: null, country: 'DE' },
  ]);
  t.deepEqual(links.find((l) => l.code === 'b')?.visits, [], 'a link without log rows has no visits; a code no link has is left');
  t.is(links.find((l) => l.code === 'a')?.visitCount, 9, "the count is the url's, whatever the log holds");
});

test('a dump without yourls_log gives no visits and says so', (t) => {
  const { links, notes } = readYourls(URL_ROW);
  t.true(links.every((l) => l.visits.length === 0));
  t.deepEqual(notes, ["the dump has no yourls_log table: each link's last click and its clicks by day are unknown"]);
});
