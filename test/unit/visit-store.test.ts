import test from 'ava';
import { rollUp } from '../../src/visits/rollup.ts';
import { DAY, type Visit } from '../../src/visits/visit.ts';
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
