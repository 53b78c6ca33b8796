// In-process costs of the pure parts of a create (URL validation, code generation) and of what metrics and
// the access log add to a request (make bench-micro).
import { randomBytes } from 'node:crypto';
import { Histogram as PromHistogram } from 'prom-client';
import { createCodeGenerator } from '../src/codes/code-generator.ts';
import { loadConfig } from '../src/config.ts';
import { Histogram } from '../src/core/histogram.ts';
import { REDIRECT_BUCKETS } from '../src/http/pipeline.ts';
import { normaliseUrl, urlRules } from '../src/links/url-rules.ts';
import { jsonLine } from '../src/core/log.ts';
import { requestLine } from '../src/http/access-log.ts';

const WARM_UP_MS = 500;
const MEASURE_MS = 1500;
const BATCH = 1000;

const rules = urlRules(loadConfig({ file: { publicUrl: 'https://s.example.test' } }));
const longQuery = Array.from({ length: 60 }, (_, i) => `param${i}=value-${i}-${'x'.repeat(20)}`).join('&');

// Each case is a function of a counter, so that nothing can be computed once and reused.
const cases: [name: string, op: (i: number) => unknown][] = [
  ['normaliseUrl: short', (i) => normaliseUrl(`https://example.com/${i}`, rules)],
  [
    'normaliseUrl: typical, with query',
    (i) => normaliseUrl(`https://www.example.com/articles/2024/05/${i}/how-we-benchmark?utm_source=newsletter&utm_medium=email`, rules),
  ],
  ['normaliseUrl: to normalise', (i) => normaliseUrl(`  HTTP://WWW.Example.COM:80/a/../b/./${i}?q=a b#Frag  `, rules)],
  ['normaliseUrl: IDN host', (i) => normaliseUrl(`https://bücher.example/straße/${i}?q=ä`, rules)],
  ['normaliseUrl: 2 KB query', (i) => normaliseUrl(`https://example.com/search/${i}?${longQuery}`, rules)],
  ['normaliseUrl: refused (credentials)', (i) => refused(() => normaliseUrl(`https://user:secret@example.com/${i}`, rules))],
  ['code: obfuscated, length 6', codeGenerator('obfuscated')],
  ['code: obfuscated, length 6, 25 per call (a batch of creations)', codeBatches(25)],
  ['code: sequential', codeGenerator('sequential')],
  ["redirect timing: a performance.now() pair and kurz's histogram (what every redirect pays)", redirectTiming()],
  ["the same with prom-client's Histogram.observe", promTiming()],
  ['access log: one JSON line (what each request pays with accessLog on, before the write)', accessLine],
];

function redirectTiming(): (i: number) => unknown {
  const times = new Histogram(REDIRECT_BUCKETS);
  return () => {
    const start = performance.now();
    times.observe(performance.now() - start);
    return times;
  };
}

function promTiming(): (i: number) => unknown {
  const times = new PromHistogram({ name: 'redirect_seconds', help: 'redirects', buckets: REDIRECT_BUCKETS, registers: [] });
  return () => {
    const start = performance.now();
    times.observe((performance.now() - start) / 1000);
    return times;
  };
}

const requestJsonLine = requestLine(jsonLine);

function accessLine(i: number): string {
  return requestJsonLine(Date.now(), {
    requestId: `3f9a1c-${i.toString(36)}`,
    client: '203.0.113.7',
    method: 'GET',
    path: '/E1aiwo',
    status: 302,
    durationMs: 0.042,
    bytes: 187,
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    referrer: 'https://news.example/item?id=1',
    aborted: undefined,
  });
}

function codeGenerator(mode: 'obfuscated' | 'sequential'): (i: number) => string {
  const generator = createCodeGenerator({ mode, length: 6, key: randomBytes(32), offset: 0 });
  // Ids past the first million: codes of a database that has seen some use.
  return (i) => generator.codeFor(1_000_000 + i);
}

/** One code per operation, taken from runs of `size` computed together with codesFor. */
function codeBatches(size: number): (i: number) => string {
  const generator = createCodeGenerator({ mode: 'obfuscated', length: 6, key: randomBytes(32), offset: 0 });
  let run: string[] = [];
  return (i) => {
    if (i % size === 0) run = generator.codesFor(1_000_000 + i, size);
    return run[i % size]!;
  };
}

function refused(op: () => unknown): unknown {
  try {
    op();
  } catch (err) {
    return err;
  }
  throw new Error('expected the URL to be refused');
}

/** Calls `op` in batches for `ms` milliseconds; returns operations per second. */
function measure(op: (i: number) => unknown, ms: number): number {
  let i = 0;
  let sink = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let k = 0; k < BATCH; k++) sink += op(i++) === undefined ? 0 : 1;
    elapsed = performance.now() - start;
  }
  if (sink !== i) throw new Error('an operation returned nothing');
  return (i / elapsed) * 1000;
}

console.log(`node ${process.version}, ${MEASURE_MS} ms per case after ${WARM_UP_MS} ms warm-up\n`);
console.log('| operation | ops/s | µs/op |\n| --- | ---: | ---: |');
for (const [name, op] of cases) {
  measure(op, WARM_UP_MS);
  const perSecond = measure(op, MEASURE_MS);
  console.log(`| ${name} | ${Math.round(perSecond).toLocaleString('en')} | ${(1e6 / perSecond).toFixed(2)} |`);
}
