/** How big and how long: `smoke` keeps CI honest, `full` is the benchmark, `large` adds 10M links. */
export type ProfileName = 'smoke' | 'full' | 'large';

export interface Profile {
  name: ProfileName;
  /** Length of each measured wrk run, in whole seconds (wrk takes no fractions). */
  seconds: number;
  /** An unmeasured run per server before the first measured one: JIT, caches, page cache. */
  warmUpSeconds: number;
  /** Measured runs per server, interleaved kurz/baseline; medians are reported. */
  rounds: number;
  scenarios: Scenario[];
}

export interface Scenario {
  /** Key in the JSON report, e.g. "hot-redirect-100k". */
  name: string;
  /** Row label in the markdown report. */
  title: string;
  /** Links seeded into the database (and loaded by the baseline). */
  links: number;
  /** The wrk script in bench/wrk/. */
  script: 'redirect.lua' | 'redirect-hosts.lua' | 'paced-redirect.lua' | 'create.lua' | 'mixed.lua' | 'scan.lua';
  /** Which codes the script draws from: 1000 spread over the seeded ones, all of them, or none. */
  codes: 'hot' | 'all' | 'none';
  /**
   * For redirect-hosts.lua: the Host headers sent in turn, each with its domain's codes (compare.ts
   * `codesByHost`); the first is the default domain, KURZ_PUBLIC_URL's host. The baseline looks codes up by
   * host too.
   */
  hosts?: readonly string[];
  /** HTTP statuses that are right answers; anything else fails the run. */
  expected: readonly number[];
  /** kurz's KURZ_CACHE_SIZE; its default otherwise. */
  cacheSize?: number;
  /** Offer half the kurz throughput measured by this (earlier) scenario instead of saturating. */
  halfLoadOf?: string;
  /** Belongs to the "scaling" table. */
  scaling?: boolean;
  /** The seeded links carry options (bench/seed.ts --options): their redirects take the gated path. */
  options?: boolean;
  /** The seeded links each carry their own 2-variant A/B split (bench/seed.ts --split): every redirect draws from the visitor hash. */
  split?: boolean;
  /** The seeded links carry 10 redirect rules each, the 10th matching every request (bench/seed.ts --rules). */
  rules?: boolean;
  /**
   * kurz runs differently from the single process on SQLite with the default settings; compared with the
   * scenario `of`, which does: with workers, on PostgreSQL, with the access log on (a line per request), or
   * with background work kept going while kurz is measured (`during`, see compare.ts `startDuring`).
   */
  variant?: { of: string; workers?: number; postgres?: boolean; accessLog?: boolean; during?: BackgroundWork };
}

/**
 * Work of kurz's own that runs beside its redirects: a backup of the database every second, or the blocklist
 * reloaded and every link screened against it every 2 s.
 */
export type BackgroundWork = 'backups' | 'blocklist-scans';

export const CONNECTIONS = 50;
/** The host of kurz's public URL in the bench: its default domain. */
export const DEFAULT_HOST = 's.example.test';
export const HOT_CODES = 1000;
const DEFAULT_CACHE_SIZE = 100_000;

const hot = (links: number): Scenario => ({
  name: `hot-redirect-${count(links)}`,
  title: `hot redirect (1k of ${count(links)} codes)`,
  links,
  script: 'redirect.lua',
  codes: 'hot',
  expected: [302],
  scaling: true,
});

/** The scenarios at one size: `links` for the hot, create, mixed and scan ones, `coldLinks` for the cold one. */
function mainScenarios(links: number, coldLinks: number): Scenario[] {
  const first = hot(links);
  return [
    first,
    {
      ...first,
      name: 'hot-redirect-domains',
      title: `hot redirect, 3 domains by Host (1k of ${count(links)} codes)`,
      script: 'redirect-hosts.lua',
      hosts: [DEFAULT_HOST, 's2.example.test', 's3.example.test'],
      scaling: false,
    },
    {
      name: 'half-load-redirect',
      title: 'hot redirect at half load',
      links,
      script: 'paced-redirect.lua',
      codes: 'hot',
      expected: [302],
      halfLoadOf: first.name,
    },
    {
      name: `cold-redirect-${count(coldLinks)}`,
      title: `cold redirect (all ${count(coldLinks)} codes, cache 10%)`,
      links: coldLinks,
      script: 'redirect.lua',
      codes: 'all',
      expected: [302],
      cacheSize: coldLinks / 10,
    },
    { name: 'create', title: 'create (links/s)', links, script: 'create.lua', codes: 'none', expected: [201] },
    {
      name: 'mixed',
      title: 'mixed: 95% hot redirects (1 in 10 by a bot), 5% creates',
      links,
      script: 'mixed.lua',
      codes: 'hot',
      expected: [302, 201],
    },
    {
      name: 'options-redirect',
      title: `hot redirect, links with options (1k of ${count(links)})`,
      links,
      script: 'redirect.lua',
      codes: 'hot',
      expected: [302],
      options: true,
    },
    {
      name: 'rules-redirect',
      title: `hot redirect, links with 10 rules, the 10th matching (1k of ${count(links)})`,
      links,
      script: 'redirect.lua',
      codes: 'hot',
      expected: [302],
      rules: true,
    },
    {
      name: 'split-redirect',
      title: `hot redirect, links with a 2-variant split (1k of ${count(links)})`,
      links,
      script: 'redirect.lua',
      codes: 'hot',
      expected: [302],
      split: true,
    },
    // A random code is all but certainly unknown; a hit on a real one is a right answer too.
    { name: 'scan', title: 'scan: random unknown codes', links, script: 'scan.lua', codes: 'none', expected: [404, 302] },
  ];
}

/**
 * The hot redirects and creations again, with two workers and on PostgreSQL, and the hot redirects with the
 * access log on (beside the single process on SQLite with the defaults).
 */
function variants(links: number): Scenario[] {
  const hotName = `hot-redirect-${count(links)}`;
  const createBase = { title: 'create (links/s)', links, script: 'create.lua', codes: 'none', expected: [201] } as const;
  const hotBase = { ...hot(links), scaling: false };
  return [
    { ...hotBase, name: `${hotName}-2-workers`, title: `${hotBase.title}, 2 workers`, variant: { of: hotName, workers: 2 } },
    { ...createBase, name: 'create-2-workers', title: 'create (links/s), 2 workers', variant: { of: 'create', workers: 2 } },
    { ...hotBase, name: `${hotName}-postgres`, title: `${hotBase.title}, PostgreSQL`, variant: { of: hotName, postgres: true } },
    { ...createBase, name: 'create-postgres', title: 'create (links/s), PostgreSQL', variant: { of: 'create', postgres: true } },
    { ...hotBase, name: `${hotName}-access-log`, title: `${hotBase.title}, access log on`, variant: { of: hotName, accessLog: true } },
    {
      ...hotBase,
      name: `${hotName}-backups`,
      title: `${hotBase.title}, a backup every second`,
      variant: { of: hotName, during: 'backups' },
    },
    {
      ...hotBase,
      name: `${hotName}-blocklist-scans`,
      title: `${hotBase.title}, a blocklist scan every 2 s`,
      variant: { of: hotName, during: 'blocklist-scans' },
    },
  ];
}

export const PROFILES: Record<ProfileName, Profile> = {
  // CI's check that every scenario runs and its numbers add up: no warm-up, whose numbers nobody reads there.
  smoke: { name: 'smoke', seconds: 1, warmUpSeconds: 0, rounds: 1, scenarios: [...mainScenarios(10_000, 10_000), ...variants(10_000)] },
  full: {
    name: 'full',
    seconds: 10,
    warmUpSeconds: 3,
    rounds: 3,
    scenarios: [...mainScenarios(100_000, 1_000_000), ...variants(100_000), hot(10_000), hot(1_000_000)],
  },
  large: { name: 'large', seconds: 10, warmUpSeconds: 3, rounds: 3, scenarios: [hot(10_000_000)] },
};

export function cacheSizeOf(scenario: Scenario): number {
  return scenario.cacheSize ?? DEFAULT_CACHE_SIZE;
}

/** 10000 -> "10k", 1000000 -> "1M". */
export function count(n: number): string {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return String(n);
}

/** Scenarios share a seeded database when they have the same size and kind of links, on the same domains. */
export function seedKey(scenario: Pick<Scenario, 'links' | 'options' | 'rules' | 'hosts' | 'split'>): string {
  const others = (scenario.hosts ?? []).filter((host) => host !== DEFAULT_HOST);
  const kind = `${scenario.options ? '-options' : ''}${scenario.rules ? '-rules' : ''}${scenario.split ? '-split' : ''}`;
  return `${count(scenario.links)}${kind}${others.length > 0 ? `-${others.length + 1}-domains` : ''}`;
}
