import { createHash } from 'node:crypto';
import test from 'ava';
import { rollUp } from '../../src/visits/rollup.ts';
import { DAY, DIMENSIONS, type Visit } from '../../src/visits/visit.ts';
import { freshStorage } from '../helpers.ts';

const START = Date.UTC(2026, 0, 1);

/** A small random generator with a fixed seed, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/** A visit with no details: what these tests look at is the link, the time and whether it is a bot. */
function bareVisit(linkId: number, at: number, bot: string | null = null): Visit {
  return {
    linkId,
    at,
    bot,
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

for (const seed of [1, 2, 3]) {
  test(`the top links are exactly those of a plain sum over every day (seed ${seed})`, async (t) => {
    const { storage, database } = await freshStorage(t);
    await database.insert(
      'links',
      Array.from({ length: 60 }, (_, i) => ({
        id: i + 1,
        code: `c${i + 1}`,
        url: `https://example.com/${i + 1}`,
        created_at: 0,
        updated_at: 0,
      })),
    );
    const random = seeded(seed);
    const visits: Visit[] = [];
    // Some links are busy on one day only, some a little every day: the bar must not lose either.
    for (let i = 0; i < 6000; i++) {
      const linkId = 1 + Math.floor(random() ** 2 * 60);
      const day = random() < 0.2 ? 13 : Math.floor(random() * 14);
      const bot = random() < 0.1 ? 'Slack' : null;
      visits.push(bareVisit(linkId, START + day * DAY + 1000, bot));
    }
    const store = storage.visits;
    await store.addVisits(rollUp(visits, false));
    for (const days of [1, 3, 14, 30]) {
      const to = START + 14 * DAY;
      const from = to - days * DAY;
      const plain = await database.sql(
        `SELECT code, sum(humans) AS humans FROM visit_days JOIN links ON links.id = link_id WHERE day >= ? AND day < ?
         GROUP BY link_id, code HAVING sum(humans) > 0 ORDER BY sum(humans) DESC, link_id LIMIT 10`,
        from,
        to,
      );
      const top = await store.topLinks(new Date(from), new Date(to), 10);
      t.deepEqual(
        top.map((l) => ({ code: l.code, humans: l.humans })),
        plain,
        `${days} days`,
      );
    }
  });
}

test('raw visits read back oldest first, whatever order they were written in, and every one once', async (t) => {
  const { storage, database } = await freshStorage(t);
  await database.insert(
    'links',
    Array.from({ length: 5 }, (_, i) => ({
      id: i + 1,
      code: `c${i + 1}`,
      url: `https://example.com/${i + 1}`,
      created_at: 0,
      updated_at: 0,
    })),
  );
  const random = seeded(7);
  // Written as the recorder writes a pass: by link, so ids do not follow time. Some share a millisecond,
  // across the export's pages of 1000.
  const visits = Array.from({ length: 2500 }, (_, i) => bareVisit(1 + (i % 5), START + Math.floor(random() * 800))).sort(
    (a, b) => a.linkId - b.linkId,
  );
  const store = storage.visits;
  await store.addVisits(rollUp(visits, true));
  const read: Array<{ id: number; at: number }> = [];
  for await (const v of store.allVisits(new Date(START), new Date(START + DAY))) read.push({ id: v.id, at: v.at.getTime() });
  t.is(read.length, visits.length);
  t.is(new Set(read.map((v) => v.id)).size, visits.length, 'no visit twice');
  t.true(
    read.every((v, i) => i === 0 || v.at > read[i - 1]!.at || (v.at === read[i - 1]!.at && v.id > read[i - 1]!.id)),
    'in time order, ties by id',
  );
  const from = START + 200;
  const to = START + 400;
  const inRange: number[] = [];
  for await (const v of store.allVisits(new Date(from), new Date(to))) inRange.push(v.at.getTime());
  t.true(inRange.length > 0);
  t.true(inRange.every((at) => at >= from && at < to));
  t.is(inRange.length, visits.filter((v) => v.at >= from && v.at < to).length);
});

test('all-time totals per link and per tag, people and bots apart, and a page of raw visits in a scope, newest first', async (t) => {
  const { storage, database } = await freshStorage(t);
  await database.insert(
    'links',
    [1, 2, 3].map((id) => ({ id, code: `v${id}`, url: `https://example.com/${id}`, created_at: 0, updated_at: 0, owner_id: 1 })),
  );
  await database.insert('link_tags', [
    { link_id: 1, tag: 'red' },
    { link_id: 2, tag: 'red' },
    { link_id: 2, tag: 'blue' },
  ]);
  const visits = [
    bareVisit(1, START + 1000),
    bareVisit(1, START + 2000, 'Slack'),
    bareVisit(1, START + DAY + 3000),
    bareVisit(2, START + 4000),
    bareVisit(3, START + 5000, 'Googlebot'),
  ];
  await storage.visits.addVisits(rollUp(visits, true));
  const store = storage.visits;
  t.deepEqual(
    (await store.linkTotals([1, 2, 3, 4])).sort((a, b) => a.linkId - b.linkId),
    [
      { linkId: 1, humans: 2, bots: 1 },
      { linkId: 2, humans: 1, bots: 0 },
      { linkId: 3, humans: 0, bots: 1 },
    ],
  );
  t.deepEqual(await store.linkTotals([]), []);
  t.deepEqual(await store.tagTotals(), [
    { tag: 'blue', links: 1, humans: 1, bots: 0 },
    { tag: 'red', links: 2, humans: 3, bots: 1 },
  ]);
  t.deepEqual(await store.tagTotals(2), [], "another owner's links have none");
  t.like(await store.totals(), { humans: 3, bots: 2 });

  const all = { from: 0, to: Number.MAX_SAFE_INTEGER, humansOnly: false };
  const page = await store.visitPage({ ...all, linkId: 1 }, 2, 0);
  t.is(page.total, 3);
  t.deepEqual(
    page.visits.map((v) => [v.at.getTime(), v.bot, v.code, v.url]),
    [
      [START + DAY + 3000, null, 'v1', 'https://example.com/1'],
      [START + 2000, 'Slack', 'v1', 'https://example.com/1'],
    ],
  );
  t.deepEqual(
    (await store.visitPage({ ...all, linkId: 1 }, 2, 2)).visits.map((v) => v.at.getTime()),
    [START + 1000],
  );
  t.is((await store.visitPage({ ...all, humansOnly: true }, 10, 0)).total, 3);
  t.is((await store.visitPage({ ...all, tag: 'red' }, 10, 0)).total, 4);
  t.is((await store.visitPage({ ...all, from: START + DAY, to: START + 2 * DAY }, 10, 0)).total, 1);
  t.is((await store.visitPage({ ...all, owner: 2 }, 10, 0)).total, 0);
  await database.sql('UPDATE links SET deleted_at = 1 WHERE id = 3');
  t.is((await store.visitPage(all, 10, 0)).total, 4, "a deleted link's visits are left out");
});

test('a flush of any size adds every visit to its hour, day, owner, breakdown and link, once', async (t) => {
  const { storage, database } = await freshStorage(t);
  await database.insert('users', [{ id: 2, name: 'member', role: 'member', created_at: 0 }]);
  // Link ids up to 300 (odd ones the member's); links above 280 are not there and count as the first admin's.
  await database.insert(
    'links',
    Array.from({ length: 280 }, (_, i) => ({
      id: i + 1,
      code: `m${i + 1}`,
      url: `https://example.com/${i + 1}`,
      created_at: 0,
      updated_at: 0,
      owner_id: (i + 1) % 2 === 1 ? 2 : 1,
    })),
  );
  const random = seeded(7);
  const expected = { humans: new Map<number, number>(), bots: new Map<number, number>(), owners: new Map<number, number>() };
  let day = 0;
  // Rows written in statements of many rows: sizes on either side of each group, one row, and nothing.
  for (const links of [1, 2, 63, 64, 65, 127, 128, 131, 300, 0]) {
    const visits: Visit[] = [];
    for (let linkId = 1; linkId <= links; linkId++) {
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const bot = random() < 0.2 ? 'Slack' : null;
        const visitor = bot === null ? createHash('sha256').update(`${linkId} ${visits.length}`).digest().subarray(0, 16) : null;
        visits.push({
          ...bareVisit(linkId, START + day * DAY + Math.floor(random() * DAY), bot),
          referrer: 'example.org',
          visitor,
          variant: 'a',
        });
        const sums = bot === null ? expected.humans : expected.bots;
        sums.set(linkId, (sums.get(linkId) ?? 0) + 1);
        const owner = linkId <= 280 && linkId % 2 === 1 ? 2 : 1;
        if (bot === null) expected.owners.set(owner, (expected.owners.get(owner) ?? 0) + 1);
      }
    }
    await storage.visits.addVisits(rollUp(visits, true));
    day++;
  }
  const perLink = async (sql: string): Promise<Map<number, number>> =>
    new Map(((await database.sql(sql)) as Array<{ link: number; n: number }>).map((r) => [Number(r.link), Number(r.n)]));
  const sorted = (sums: Map<number, number>): Array<[number, number]> => [...sums].sort((a, b) => a[0] - b[0]);
  t.deepEqual(
    sorted(await perLink('SELECT link_id AS link, sum(humans) AS n FROM visit_hours GROUP BY link_id HAVING sum(humans) > 0')),
    sorted(expected.humans),
  );
  t.deepEqual(
    sorted(await perLink('SELECT link_id AS link, sum(bots) AS n FROM visit_days GROUP BY link_id HAVING sum(bots) > 0')),
    sorted(expected.bots),
  );
  t.deepEqual(sorted(await perLink('SELECT link_id AS link, count AS n FROM link_visits')), sorted(expected.humans));
  t.deepEqual(
    sorted(await perLink(`SELECT link_id AS link, sum(count) AS n FROM visit_dimension_days WHERE value = 'example.org' GROUP BY link_id`)),
    sorted(expected.humans),
  );
  // Every person a new visitor, to the variant "a": as many unique visitors, and of the variant, as people.
  t.deepEqual(
    sorted(await perLink('SELECT link_id AS link, sum(uniques) AS n FROM visit_days GROUP BY link_id HAVING sum(uniques) > 0')),
    sorted(expected.humans),
  );
  t.deepEqual(
    sorted(
      await perLink(
        `SELECT link_id AS link, sum(count) AS n FROM visit_dimensions WHERE value = 'a' AND dimension = ${DIMENSIONS.indexOf('variant_visitors')} GROUP BY link_id`,
      ),
    ),
    sorted(expected.humans),
  );
  t.deepEqual(
    sorted(await perLink('SELECT owner_id AS link, sum(humans) AS n FROM visit_totals GROUP BY owner_id')),
    sorted(expected.owners),
  );
  const raw = (await database.sql('SELECT count(*) AS n FROM visits')) as Array<{ n: number }>;
  t.is(
    Number(raw[0]!.n),
    [...expected.humans.values(), ...expected.bots.values()].reduce((a, b) => a + b, 0),
  );
});
