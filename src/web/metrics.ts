import { AggregatorRegistry, collectDefaultMetrics, Registry, type Aggregator, type Metric } from 'prom-client';
import { refusalCounts } from '../auth/rate-limits.ts';
import type { WebServices } from '../context.ts';
import type { HistogramSnapshot } from '../core/histogram.ts';

/** The content type of Prometheus's text exposition format. */
export const METRICS_CONTENT_TYPE: string = Registry.PROMETHEUS_CONTENT_TYPE;

/** One process's metrics as prom-client's JSON: what a primary adds up over its workers. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export interface Metrics {
  /** This process's metrics in Prometheus's text format. */
  text(): Promise<string>;
  /** The same as JSON. */
  json(): Promise<MetricsJson>;
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  /** A histogram's `_bucket`, `_sum` and `_count` series. */
  metricName?: string;
}

/** A metric whose values are read when scraped, from counters the request path keeps anyway. */
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** How a primary adds up its workers' values; sum unless said. */
  aggregator?: Aggregator;
  values: () => Sample[] | Promise<Sample[]>;
}

/**
 * /metrics: what the pipeline, the cache, creation, the visit buffer and the store count, read at scrape
 * time (the request path pays nothing more for it), and prom-client's process metrics (CPU, memory, event
 * loop lag, GC). The registry is built on the first scrape, so an instance nobody scrapes pays nothing.
 */
export function createMetrics(web: WebServices): Metrics {
  let registry: Registry | undefined;
  const built = (): Registry => (registry ??= buildRegistry(web));
  return {
    text: () => built().metrics(),
    json: () => built().getMetricsAsJSON(),
  };
}

/** Adds up the metrics of several processes (a primary's and its workers') into one text. */
export function aggregateMetrics(processes: MetricsJson[]): Promise<string> {
  return AggregatorRegistry.aggregate(processes).metrics();
}

function buildRegistry(web: WebServices): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const { pipeline, creation, visits, recorder } = web;
  const collected: Collected[] = [
    {
      name: 'kurz_http_requests_total',
      help: 'Requests answered, by route (its pattern in the route table, "redirect", or "unmatched") and status',
      type: 'counter',
      values: () => pipeline.requests.snapshot().map(({ route, status, count }) => ({ labels: { route, status }, value: count })),
    },
    {
      name: 'kurz_redirect_duration_seconds',
      help: 'Time from the redirect taking a request to its answer being written, store lookup included',
      type: 'histogram',
      values: () => histogram('kurz_redirect_duration_seconds', pipeline.redirectTimes.snapshot()),
    },
    {
      name: 'kurz_redirect_cache_lookups_total',
      help: 'Redirect cache lookups by result: hit (a link), unknown (remembered as not existing), miss (the store was asked)',
      type: 'counter',
      values: () => {
        const { hits, unknownHits, misses } = web.cacheStats();
        return [
          { labels: { result: 'hit' }, value: hits },
          { labels: { result: 'unknown' }, value: unknownHits },
          { labels: { result: 'miss' }, value: misses },
        ];
      },
    },
    {
      name: 'kurz_redirect_cache_links',
      help: 'Links held in the redirect cache',
      type: 'gauge',
      values: () => [{ labels: {}, value: web.cacheStats().size }],
    },
    {
      name: 'kurz_links_created_total',
      help: 'Links created',
      type: 'counter',
      values: () => [{ labels: {}, value: creation.stats().created }],
    },
    {
      name: 'kurz_links_deduplicated_total',
      help: 'Submissions answered with the earlier link of the same URL (dedupeWindow)',
      type: 'counter',
      values: () => [{ labels: {}, value: creation.stats().deduplicated }],
    },
    {
      name: 'kurz_link_creations_refused_total',
      help: 'Submissions refused, by reason: the error code, and the field at fault when there is one',
      type: 'counter',
      values: () => [...creation.stats().refused].map(([reason, count]) => ({ labels: { reason }, value: count })),
    },
    {
      name: 'kurz_visit_buffer_events',
      help: 'Visits recorded and not yet handed on to be written',
      type: 'gauge',
      values: () => [{ labels: {}, value: visits.pending }],
    },
    {
      name: 'kurz_visit_writes_pending',
      help: 'Visits handed to this process to be written and not written yet (on SQLite, serve writes them in its background process)',
      type: 'gauge',
      values: () => [{ labels: {}, value: recorder.pending }],
    },
    {
      name: 'kurz_visit_detail_dropped_total',
      help: 'Visits only counted (per link and hour), their detail dropped, because more than visitBacklog waited for the background writer',
      type: 'counter',
      values: () => [{ labels: {}, value: web.visitDetailDropped() }],
    },
    {
      name: 'kurz_visit_flush_duration_seconds',
      help: "Time each flush of the visit buffer held the event loop: the hand-over, or this process's write",
      type: 'histogram',
      values: () => histogram('kurz_visit_flush_duration_seconds', visits.flushTimes.snapshot()),
    },
    {
      name: 'kurz_database_size_bytes',
      help: "The database's size: SQLite's file and write-ahead log, or PostgreSQL's pg_database_size",
      type: 'gauge',
      aggregator: 'max',
      // Left out while the database does not answer: the rest of a scrape matters most then.
      values: () =>
        web.databaseBytes().then(
          (bytes) => [{ labels: {}, value: bytes }],
          () => [],
        ),
    },
    {
      name: 'kurz_rate_limited_total',
      help: 'Requests refused by a rate limit, by limit',
      type: 'counter',
      values: () => [
        ...refusalCounts(web.limits).map(({ limit, refused }) => ({ labels: { limit }, value: refused })),
        // Checks refused because this process already ran as many password hashes as it may at once.
        { labels: { limit: 'password_hashing' }, value: web.hashing.refused },
      ],
    },
    {
      name: 'kurz_password_hashes_total',
      help: 'Slow password hashes run: logins, link passwords, passwords set',
      type: 'counter',
      values: () => [{ labels: {}, value: web.hashing.ran }],
    },
  ];
  for (const metric of collected) registry.registerMetric(asMetric(metric));
  return registry;
}

/** A histogram's series as Prometheus shows them: cumulative buckets by `le`, then `_sum` and `_count`. */
function histogram(name: string, { bounds, cumulative, count, sum }: HistogramSnapshot): Sample[] {
  const samples: Sample[] = bounds.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le }, value: cumulative[i]! }));
  samples.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: count });
  samples.push({ metricName: `${name}_sum`, labels: {}, value: sum });
  samples.push({ metricName: `${name}_count`, labels: {}, value: count });
  return samples;
}

/**
 * prom-client's registry takes any object with a name and a `get()` giving the values, as its own
 * AggregatorRegistry registers them; its Counter and Histogram classes keep values of their own instead.
 */
function asMetric({ name, help, type, aggregator = 'sum', values }: Collected): Metric {
  const metric = { name, help, type, aggregator, get: async () => ({ name, help, type, aggregator, values: await values() }) };
  return metric as unknown as Metric;
}
