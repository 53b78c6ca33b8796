import type { MetricsJson } from '../web/metrics.ts';
import { isCount, isRecord, type Channel } from './channel.ts';

/**
 * Worker to primary: a scrape of /metrics the worker took (answered with every process's metrics added
 * up), or the worker's own metrics, which the primary asked for under `report`.
 */
export type MetricsFromWorker = { scrape: number } | { report: number; metrics: MetricsJson };

export const metricsFromWorker: Channel<MetricsFromWorker> = {
  name: 'metrics',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (isCount(body['scrape'])) return { scrape: body['scrape'] };
    if (isCount(body['report']) && isMetricsJson(body['metrics'])) return { report: body['report'], metrics: body['metrics'] };
    return undefined;
  },
};

/** Primary to worker: send your own metrics (`report`), or here is the scrape you asked for. */
export type MetricsToWorker = { report: number } | { scraped: number; text: string } | { scraped: number; error: string };

export const metricsToWorker: Channel<MetricsToWorker> = {
  name: 'metrics',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (isCount(body['report'])) return { report: body['report'] };
    if (!isCount(body['scraped'])) return undefined;
    if (typeof body['text'] === 'string') return { scraped: body['scraped'], text: body['text'] };
    if (typeof body['error'] === 'string') return { scraped: body['scraped'], error: body['error'] };
    return undefined;
  },
};

/** prom-client's metrics as JSON, as far as adding them up reads them: named metrics with labelled values. */
function isMetricsJson(value: unknown): value is MetricsJson {
  return (
    Array.isArray(value) &&
    value.every(
      (metric) =>
        isRecord(metric) &&
        typeof metric['name'] === 'string' &&
        typeof metric['type'] === 'string' &&
        Array.isArray(metric['values']) &&
        metric['values'].every(
          (v) => isRecord(v) && typeof v['value'] === 'number' && (v['labels'] === undefined || isRecord(v['labels'])),
        ),
    )
  );
}
