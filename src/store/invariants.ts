import { RESERVED_PATHS } from '../links/reserved-paths.ts';
import { CODE_KEY_BYTES, CODE_KEY_SETTING } from '../codes/code-generator.ts';
import { BREAKDOWNS, DIMENSIONS } from '../visits/visit.ts';

/** Runs one statement and resolves with its rows; both backends answer the statements below alike. */
export type Query = (sql: string) => Promise<Array<Record<string, unknown>>>;

/** One check of a database and what it found: no problems means it passed; `skipped` says why it did not run. */
export interface CheckOutcome {
  name: string;
  problems: string[];
  /** A figure shown beside a check that passed. */
  detail?: string;
  skipped?: string;
}

/** A database's checks, and its size when its tables could be read. */
export interface CheckReport {
  outcomes: CheckOutcome[];
  totals?: { links: number; visits: number };
}

// The statements: one read each, in SQL that SQLite and PostgreSQL both take. Counts and sums come back as
// numbers from SQLite and as strings from PostgreSQL; the checks read them with Number().

/** Tables whose rows name a link; link rows are never removed (deleting only marks them), so none may be left without one. */
const LINKED_TABLES = ['link_visits', 'link_tags', 'visit_hours', 'visit_days'] as const;

const ORPHANS = LINKED_TABLES.map(
  (table) => `SELECT '${table}' AS source, count(*) AS n FROM ${table} WHERE link_id NOT IN (SELECT id FROM links)`,
).join(' UNION ALL ');

/** The figures every rollup of visits keeps, each summed over `table`. */
const FIGURES = ['humans', 'bots', 'uniques', 'undetailed_humans', 'undetailed_bots'] as const;

const sums = (rollup: string, table: string): string =>
  `SELECT '${rollup}' AS rollup, ${FIGURES.map((f) => `coalesce(sum(${f}), 0) AS ${f}`).join(', ')} FROM ${table}`;

const ROLLUP_SUMS = [sums('by hour', 'visit_hours'), sums('by day', 'visit_days'), sums('instance by day', 'visit_totals')].join(
  ' UNION ALL ',
);

const DIMENSION_SUMS = `SELECT 'by hour' AS rollup, dimension, sum(count) AS count FROM visit_dimensions GROUP BY dimension
  UNION ALL SELECT 'by day' AS rollup, dimension, sum(count) AS count FROM visit_dimension_days GROUP BY dimension`;

/** Links whose all-time count of human visits is below what their hourly series holds. */
const COUNTS_BELOW_SERIES = `SELECT count(*) AS n, min(series.link_id) AS first FROM
  (SELECT link_id, sum(humans) AS humans FROM visit_hours GROUP BY link_id) series
  LEFT JOIN link_visits counted ON counted.link_id = series.link_id
  WHERE coalesce(counted.count, 0) < series.humans`;

/** Links on no domain, and live links on a removed one: the redirect could not reach them. */
const LINKS_OFF_DOMAINS = `SELECT
  (SELECT count(*) FROM links WHERE domain_id NOT IN (SELECT id FROM domains)) AS nowhere,
  (SELECT count(*) FROM links WHERE deleted_at IS NULL AND domain_id IN (SELECT id FROM domains WHERE removed_at IS NOT NULL)) AS removed`;

/** Each user's figures are their links': every day's row of a link under its owner, and each owner's totals their days' sums. */
const FIGURES_OFF_OWNER = `SELECT
  (SELECT count(*) FROM visit_days JOIN links ON links.id = visit_days.link_id WHERE visit_days.owner_id <> links.owner_id) AS misplaced,
  (SELECT count(*) FROM visit_totals t FULL JOIN
    (SELECT owner_id, day, ${FIGURES.map((f) => `sum(${f}) AS ${f}`).join(', ')} FROM visit_days GROUP BY owner_id, day) d
    ON d.owner_id = t.owner_id AND d.day = t.day
    WHERE ${FIGURES.map((f) => `coalesce(t.${f}, 0) <> coalesce(d.${f}, 0)`).join(' OR ')}) AS unequal`;

/**
 * Live links whose code became one of kurz's own paths in a later version (an alias "review" made before the
 * review page): the path answers, so no one reaches the link.
 */
const SHADOWED = `SELECT count(*) AS n, min(code) AS first FROM links
  WHERE deleted_at IS NULL AND lower(code) IN (${[...RESERVED_PATHS].map((p) => `'${p}'`).join(', ')})`;

const CODE_KEY = `SELECT value FROM settings WHERE key = '${CODE_KEY_SETTING}'`;

const TOTALS = `SELECT (SELECT count(*) FROM links) AS links, (SELECT coalesce(sum(count), 0) FROM link_visits) AS visits`;

/**
 * Checks that kurz's tables agree with each other, through `query` (run it in one read snapshot, so that
 * the writes of a live server never show half done). These hold for any database kurz wrote, whatever its
 * traffic: the rollups are kept for good and only ever added to; the raw visits and the visitor hashes,
 * which are pruned, are not compared with them.
 */
export async function checkInvariants(query: Query): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  const run = async (name: string, check: () => Promise<Omit<CheckOutcome, 'name'>>): Promise<void> => {
    try {
      outcomes.push({ name, ...(await check()) });
    } catch (err) {
      outcomes.push({ name, problems: [`could not be read: ${(err as Error).message}`] });
    }
  };

  await run('the code key is there', async () => {
    const [row] = await query(CODE_KEY);
    const hex = typeof row?.['value'] === 'string' ? row['value'] : '';
    const [links] = await query(TOTALS);
    if (new RegExp(`^[0-9a-f]{${2 * CODE_KEY_BYTES}}$`).test(hex) || (Number(links?.['links']) === 0 && row === undefined)) {
      return { problems: [] };
    }
    return { problems: [row === undefined ? 'the settings hold no code key' : `the code key is not ${CODE_KEY_BYTES} bytes in hex`] };
  });

  await run(`every row of ${LINKED_TABLES.join(', ')} belongs to a link`, async () => {
    const rows = await query(ORPHANS);
    return { problems: rows.filter((r) => Number(r['n']) > 0).map((r) => `${String(r['source'])}: ${Number(r['n'])} rows name no link`) };
  });

  await run("every link is on one of kurz's domains, and no live link on a removed one", async () => {
    const [row] = await query(LINKS_OFF_DOMAINS);
    const nowhere = Number(row?.['nowhere'] ?? 0);
    const removed = Number(row?.['removed'] ?? 0);
    return {
      problems: [
        ...(nowhere > 0 ? [`${nowhere} links name a domain that does not exist`] : []),
        ...(removed > 0 ? [`${removed} live links are on a removed domain`] : []),
      ],
    };
  });

  await run("each user's figures are their links' (visits by day under the link's owner, and their day totals)", async () => {
    const [row] = await query(FIGURES_OFF_OWNER);
    const misplaced = Number(row?.['misplaced'] ?? 0);
    const unequal = Number(row?.['unequal'] ?? 0);
    return {
      problems: [
        ...(misplaced > 0 ? [`${misplaced} days of visits are under a user who does not own their link`] : []),
        ...(unequal > 0 ? [`${unequal} of a user's day totals differ from their links' visits that day`] : []),
      ],
    };
  });

  await run("no live link's code is one of kurz's own paths (which would answer instead)", async () => {
    const [row] = await query(SHADOWED);
    const n = Number(row?.['n'] ?? 0);
    return {
      problems:
        n === 0 ? [] : [`${n} live links cannot be reached: their code is one of kurz's paths now (the first: ${String(row?.['first'])})`],
    };
  });

  let hours = { humans: 0, bots: 0, undetailed_humans: 0, undetailed_bots: 0 };
  await run('visits by hour = by day = instance by day (people, bots, unique visitors, only counted)', async () => {
    const rows = (await query(ROLLUP_SUMS)).map((r) => ({
      rollup: String(r['rollup']),
      ...(Object.fromEntries(FIGURES.map((f) => [f, Number(r[f])])) as Record<(typeof FIGURES)[number], number>),
    }));
    const [first] = rows;
    if (!first) return { problems: ['no sums came back'] };
    hours = first;
    const differ = rows.filter((r) => FIGURES.some((f) => r[f] !== first[f]));
    const shown = (r: (typeof rows)[number]): string =>
      `${r.humans} people, ${r.bots} bots, ${r.uniques} unique visitors` +
      (r.undetailed_humans + r.undetailed_bots > 0 ? `; only counted: ${r.undetailed_humans} people, ${r.undetailed_bots} bots` : '');
    return differ.length === 0 ? { problems: [], detail: shown(first) } : { problems: rows.map((r) => `${r.rollup}: ${shown(r)}`) };
  });

  await run("each breakdown sums to the visits, by hour and by day (people's; 'bots' to the bots')", async () => {
    const sums = new Map<string, number>();
    for (const r of await query(DIMENSION_SUMS)) {
      const key = `${String(r['rollup'])} ${Number(r['dimension'])}`;
      sums.set(key, (sums.get(key) ?? 0) + Number(r['count']));
    }
    const problems: string[] = [];
    for (const rollup of ['by hour', 'by day']) {
      // The variant dimensions count only the visits of links with a split; visits only counted are in none.
      BREAKDOWNS.forEach((dimension) => {
        const i = DIMENSIONS.indexOf(dimension);
        const expected = dimension === 'bots' ? hours.bots - hours.undetailed_bots : hours.humans - hours.undetailed_humans;
        const actual = sums.get(`${rollup} ${i}`) ?? 0;
        if (actual !== expected) problems.push(`${dimension} ${rollup}: ${actual}, expected ${expected}`);
      });
    }
    return { problems };
  });

  await run("each link's all-time count holds at least its hourly series", async () => {
    const [row] = await query(COUNTS_BELOW_SERIES);
    const n = Number(row?.['n'] ?? 0);
    return {
      problems: n === 0 ? [] : [`${n} links count fewer visits than their series hold (the first: link id ${Number(row?.['first'])})`],
    };
  });
  return outcomes;
}

/** Links and counted visits, for the line that ends a check. */
export async function totalsOf(query: Query): Promise<{ links: number; visits: number }> {
  const [row] = await query(TOTALS);
  return { links: Number(row?.['links'] ?? 0), visits: Number(row?.['visits'] ?? 0) };
}
