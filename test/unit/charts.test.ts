import { execFileSync } from 'node:child_process';
import test from 'ava';
import {
  barChart,
  lineChart,
  shareBar,
  sparkline,
  trendLine,
  worldMap,
  type BarChartOptions,
  type ChartPoint,
} from '../../src/web/charts.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `length` zero points from `start`, `step` apart, with the given human counts at their indexes. */
function series(start: string, length: number, step: number, humans: Record<number, number> = {}): ChartPoint[] {
  const t0 = Date.parse(start);
  return Array.from({ length }, (_, i) => ({ t: t0 + i * step, humans: humans[i] ?? 0, bots: 0 }));
}

function hourly(points: ChartPoint[], title = 'Human visits per hour'): BarChartOptions {
  return { id: 'hourly', title, granularity: 'hour', points };
}

interface Bar {
  t: string;
  value: number;
  y: number;
  height: number;
  tooltip: string;
}

function bars(svg: string): Bar[] {
  return [...svg.matchAll(/<rect class="chart-bar" ([^>]*)><title>([^<]*)<\/title><\/rect>/g)].map(([, attributes, tooltip]) => {
    const attr = (name: string) => new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes!)?.[1] ?? '';
    return {
      t: attr('data-t'),
      value: Number(attr('data-value')),
      y: Number(attr('y')),
      height: Number(attr('height')),
      tooltip: tooltip!,
    };
  });
}

function texts(svg: string, anchor: 'end' | 'middle'): string[] {
  return [...svg.matchAll(new RegExp(`<text class="axis-label" text-anchor="${anchor}"[^>]*>([^<]*)</text>`, 'g'))].map((m) => m[1]!);
}

function gridlineYs(svg: string): number[] {
  return [...svg.matchAll(/<line class="chart-grid" [^>]*y1="([\d.]+)"/g)].map((m) => Number(m[1]));
}

const KNOWN = series('2025-11-22T00:00:00Z', 48, HOUR, { 3: 5, 14: 87, 30: 40, 41: 1 });

test('draws one bar per hour with human visits, at its time and count', (t) => {
  const drawn = bars(barChart(hourly(KNOWN)));
  t.deepEqual(
    drawn.map((b) => [b.t, b.value]),
    [
      ['2025-11-22T03:00:00.000Z', 5],
      ['2025-11-22T14:00:00.000Z', 87],
      ['2025-11-23T06:00:00.000Z', 40],
      ['2025-11-23T17:00:00.000Z', 1],
    ],
  );
  t.deepEqual(
    drawn.map((b) => b.tooltip),
    [
      '03:00 on 22 Nov: 5 human visits',
      '14:00 on 22 Nov: 87 human visits',
      '06:00 on 23 Nov: 40 human visits',
      '17:00 on 23 Nov: 1 human visit',
    ],
  );
});

test('bar heights are proportional to human visits and stand on one baseline', (t) => {
  const drawn = bars(barChart(hourly(KNOWN))).sort((a, b) => a.value - b.value);
  for (let i = 1; i < drawn.length; i++)
    t.true(drawn[i]!.height > drawn[i - 1]!.height, `${drawn[i]!.value} is taller than ${drawn[i - 1]!.value}`);
  const perVisit = drawn[drawn.length - 1]!.height / 87;
  for (const bar of drawn) t.true(Math.abs(bar.height - bar.value * perVisit) < 0.02, `height of ${bar.value}`);
  t.is(new Set(drawn.map((b) => (b.y + b.height).toFixed(2))).size, 1);
});

test('bots are never drawn and do not stretch the scale', (t) => {
  const points = series('2025-11-22T00:00:00Z', 4, HOUR, { 1: 2 });
  points[0]!.bots = 500;
  points[1]!.bots = 1000;
  const svg = barChart(hourly(points));
  t.deepEqual(
    bars(svg).map((b) => [b.t, b.value, b.tooltip]),
    [['2025-11-22T01:00:00.000Z', 2, '01:00 on 22 Nov: 2 human visits, 1,000 bot visits']],
  );
  t.deepEqual(texts(svg, 'end'), ['0', '1', '2']);
});

// The busiest count → the y labels: 0, the middle (when a whole number) and a 1/2/5 × 10^n maximum.
const SCALES: Array<[number, string[]]> = [
  [1, ['0', '1', '2']],
  [2, ['0', '1', '2']],
  [3, ['0', '5']],
  [9, ['0', '5', '10']],
  [87, ['0', '50', '100']],
  [100, ['0', '50', '100']],
  [101, ['0', '100', '200']],
  [1234, ['0', '1,000', '2,000']],
  [45_000, ['0', '25,000', '50,000']],
  [3_000_001, ['0', '2,500,000', '5,000,000']],
];
for (const [busiest, labels] of SCALES) {
  test(`y scale for a busiest count of ${busiest} is ${labels.join(' / ')}`, (t) => {
    const svg = barChart(hourly(series('2025-11-22T00:00:00Z', 24, HOUR, { 5: busiest, 6: Math.ceil(busiest / 3) })));
    t.deepEqual(texts(svg, 'end'), labels);
    const top = Math.min(...gridlineYs(svg));
    const tallest = bars(svg).find((b) => b.value === busiest)!;
    t.true(tallest.y >= top, 'the busiest bar fits under the top gridline');
  });
}

// Points → the x labels in order; hour charts add the date under midnight.
const X_LABELS: Array<[string, BarChartOptions['granularity'], ChartPoint[], string[]]> = [
  ['48 hours from midnight', 'hour', series('2025-11-22T00:00:00Z', 48, HOUR), ['00:00', '22 Nov', '12:00', '00:00', '23 Nov', '12:00']],
  ['48 hours from 09:00', 'hour', series('2025-11-22T09:00:00Z', 48, HOUR), ['12:00', '00:00', '23 Nov', '12:00', '00:00', '24 Nov']],
  ['24 hours', 'hour', series('2025-11-23T00:00:00Z', 24, HOUR), ['00:00', '23 Nov', '06:00', '12:00', '18:00']],
  ['7 days hourly', 'hour', series('2025-11-17T00:00:00Z', 168, HOUR), ['00:00', '18 Nov', '00:00', '20 Nov', '00:00', '22 Nov']],
  ['30 days', 'day', series('2025-10-27T00:00:00Z', 30, DAY), ['27 Oct', '3 Nov', '10 Nov', '17 Nov', '24 Nov']],
  ['30 days from a Wednesday', 'day', series('2025-10-29T00:00:00Z', 30, DAY), ['3 Nov', '10 Nov', '17 Nov', '24 Nov']],
  ['7 days', 'day', series('2025-11-17T00:00:00Z', 7, DAY), ['18 Nov', '20 Nov', '22 Nov']],
  ['14 days hourly, weekly on Mondays', 'hour', series('2025-11-12T00:00:00Z', 336, HOUR), ['00:00', '17 Nov', '00:00', '24 Nov']],
  ['over a new year', 'day', series('2025-12-29T00:00:00Z', 7, DAY), ['30 Dec', '1 Jan', '3 Jan']],
];
for (const [name, granularity, points, labels] of X_LABELS) {
  test(`x labels for ${name}`, (t) => {
    t.deepEqual(texts(barChart({ id: 'c', title: 'Visits', granularity, points }), 'middle'), labels);
  });
}

// However long the period, neighbouring x labels keep clear of each other (they are at most ~75 units wide).
const LENGTHS: Array<[BarChartOptions['granularity'], number]> = [
  ['hour', 1],
  ['hour', 24],
  ['hour', 48],
  ['hour', 168],
  ['hour', 720],
  ['day', 1],
  ['day', 7],
  ['day', 30],
  ['day', 90],
  ['day', 365],
];
for (const [granularity, length] of LENGTHS) {
  test(`x labels of ${length} ${granularity}s do not overlap`, (t) => {
    const points = series('2025-01-01T00:00:00Z', length, granularity === 'hour' ? HOUR : DAY, { 0: 1 });
    const svg = barChart({ id: 'c', title: 'Visits', granularity, points });
    const xs = [...new Set([...svg.matchAll(/<text class="axis-label" text-anchor="middle" x="([\d.]+)"/g)].map((m) => Number(m[1])))];
    t.true(xs.length >= 1);
    for (let i = 1; i < xs.length; i++) t.true(xs[i]! - xs[i - 1]! >= 90, `${xs[i - 1]} → ${xs[i]}`);
    for (const x of xs) t.true(x >= 40 && x <= 600, `${x} is inside the view box`);
  });
}

// Options → the <desc> read out by screen readers.
const SUMMARIES: Array<[string, BarChartOptions, string]> = [
  ['hours', hourly(KNOWN), '133 human visits in 48 hours; the busiest hour was 14:00 on 22 Nov with 87.'],
  [
    'days, with thousands',
    { id: 'd', title: 'Per day', granularity: 'day', points: series('2025-11-01T00:00:00Z', 30, DAY, { 22: 1200, 3: 34, 29: 1200 }) },
    '2,434 human visits in 30 days; the busiest day was 23 Nov with 1,200.',
  ],
  [
    'one visit in one hour',
    hourly(series('2025-11-22T06:00:00Z', 1, HOUR, { 0: 1 })),
    '1 human visit in 1 hour; the busiest hour was 06:00 on 22 Nov with 1.',
  ],
  ['no visits', hourly(series('2025-11-22T00:00:00Z', 48, HOUR)), 'No human visits in 48 hours.'],
  ['no points', hourly([]), 'No human visits in this period.'],
];
for (const [name, options, text] of SUMMARIES) {
  test(`desc summarises ${name}`, (t) => {
    const svg = barChart(options);
    t.true(svg.includes(`aria-labelledby="${options.id}-title ${options.id}-desc"`));
    t.true(svg.includes(`<title id="${options.id}-title">${options.title}</title>`));
    t.true(svg.includes(`<desc id="${options.id}-desc">${text}</desc>`), svg.match(/<desc[^>]*>[^<]*/)?.[0]);
  });
}

test('the root element scales with its container and is an image to assistive technology', (t) => {
  const root = /^<svg [^>]*>/.exec(barChart(hourly(KNOWN)))?.[0] ?? '';
  for (const attribute of [
    'xmlns="http://www.w3.org/2000/svg"',
    'viewBox="0 0 640 240"',
    'preserveAspectRatio="xMidYMid meet"',
    'class="chart"',
    'role="img"',
  ]) {
    t.true(root.includes(attribute), attribute);
  }
  t.notRegex(root, /\s(width|height)=/);
});

test('text is escaped for XML', (t) => {
  const svg = barChart({ ...hourly(KNOWN, 'Visits to <a href="x"> & co\'s'), id: 'q"<' });
  t.true(svg.includes('<title id="q&quot;&lt;-title">Visits to &lt;a href=&quot;x&quot;&gt; &amp; co&#39;s</title>'));
  t.true(svg.includes('aria-labelledby="q&quot;&lt;-title q&quot;&lt;-desc"'));
  t.false(svg.includes('<a href'));
});

test('all zero draws the axes and says so instead of bars', (t) => {
  const svg = barChart(hourly(series('2025-11-22T00:00:00Z', 48, HOUR, {})));
  t.false(svg.includes('class="chart-bar"'));
  t.regex(svg, /<text class="chart-empty"[^>]*>No human visits in this period<\/text>/);
  t.regex(svg, /<line class="axis" /);
  t.deepEqual(texts(svg, 'end'), ['0']);
  t.deepEqual(texts(svg, 'middle'), ['00:00', '22 Nov', '12:00', '00:00', '23 Nov', '12:00']);
  t.false(barChart(hourly(KNOWN)).includes('class="chart-empty"'));
});

const FIXTURES: Array<[string, BarChartOptions]> = [
  ['hours', hourly(KNOWN)],
  ['days', { id: 'd', title: 'Per day', granularity: 'day', points: series('2025-11-01T00:00:00Z', 90, DAY, { 5: 3, 80: 12_000 }) }],
  ['no visits', hourly(series('2025-11-22T00:00:00Z', 48, HOUR))],
  ['no points', hourly([])],
];
for (const [name, options] of FIXTURES) {
  test(`${name}: no inline styles, which the Content-Security-Policy would block`, (t) => {
    const svg = barChart(options);
    t.notRegex(svg, /\sstyle=/i);
    t.notRegex(svg, /<style/i);
    t.notRegex(svg, /NaN|undefined|Infinity/);
  });
}

// A child process, because ava's worker threads do not pass a changed TZ on to Date.
test('output is the same in every time zone', (t) => {
  const module = new URL('../../src/web/charts.ts', import.meta.url).href;
  const options = JSON.stringify(hourly(KNOWN));
  const script = `import { barChart } from ${JSON.stringify(module)}; process.stdout.write(barChart(${options}));`;
  for (const tz of ['Pacific/Kiritimati', 'America/Los_Angeles', 'Asia/Kolkata']) {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TZ: tz },
      encoding: 'utf8',
    });
    t.is(output, barChart(hourly(KNOWN)), tz);
  }
});

const SPARKLINES: Array<[number[], string]> = [
  [[], ''],
  [[0, 0], '▁▁'],
  [[0, 1, 2, 3, 4, 5, 6, 7], '▁▂▃▄▅▆▇█'],
  [[5], '█'],
  [[0, 14], '▁█'],
  [[1, 100], '▂█'],
  [[50, 100, 0], '▅█▁'],
  [[-3, Number.NaN, 4], '▁▁█'],
];
for (const [values, expected] of SPARKLINES) {
  test(`sparkline ${JSON.stringify(values)} → ${JSON.stringify(expected)}`, (t) => {
    t.is(sparkline(values), expected);
  });
}

const SHARES: Array<[number, number, string]> = [
  [0, 10, '0'],
  [1, 4, '25'],
  [2, 3, '66.67'],
  [5, 5, '100'],
  [1, 100_000, '0.5'],
  [3, 0, '0'],
];

for (const [count, total, width] of SHARES) {
  test(`a share bar of ${count} in ${total} fills ${width} of 100 units, hidden from screen readers`, (t) => {
    const svg = shareBar(count, total);
    t.regex(svg, new RegExp(`<rect class="share-fill" width="${width}" height="10"/>`));
    t.regex(svg, /aria-hidden="true"/);
    t.notRegex(svg, /style=/, 'no inline style: the CSP allows none');
  });
}

test('a line chart draws one line per series, in its own class, with each total in its title; names are escaped', (t) => {
  const svg = lineChart({
    id: 'cmp',
    title: 'Human visits per day',
    granularity: 'day',
    series: [
      { name: 'a<b>', points: series('2026-01-01T00:00:00Z', 3, DAY, { 0: 2, 2: 4 }) },
      { name: 'c"d', points: series('2026-01-01T00:00:00Z', 3, DAY, { 1: 1 }) },
    ],
  });
  t.is([...svg.matchAll(/<g class="series series-(\d)">/g)].map((m) => m[1]).join(), '0,1');
  t.regex(svg, /<title>a&lt;b&gt;: 6 human visits<\/title>/);
  t.regex(svg, /<title>c&quot;d: 1 human visits<\/title>/);
  t.is(svg.match(/<path class="series-line"/g)?.length, 2);
  t.notRegex(svg, /<b>/);
});

test('a trend line has a point a day and stays within its box', (t) => {
  const svg = trendLine([0, 3, 1, 0, 6]);
  const d = /class="trend-line" d="([^"]*)"/.exec(svg)?.[1] ?? '';
  t.is(d.match(/[ML]/g)?.length, 5);
  const ys = [...d.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
  t.true(ys.every((y) => y >= 0 && y <= 28));
  t.is(Math.min(...ys), 2, 'the busiest day at the top');
});

test('the map shades countries by their share of the busiest, names each with its count, and leaves out what it cannot draw', (t) => {
  const svg = worldMap({
    id: 'map',
    title: 'Visits <by> country',
    entries: [
      { name: 'DE', count: 100 },
      { name: 'JP', count: 25 },
      { name: 'BR', count: 1 },
      { name: 'unknown', count: 50 },
      { name: 'SG', count: 7 },
    ],
  });
  const country = (code: string) =>
    new RegExp(`<path class="country (map-\\d)" d="[^"]+" data-country="${code}"><title>([^<]*)</title>`).exec(svg);
  t.deepEqual(country('DE')?.slice(1), ['map-5', 'Germany: 100 visits']);
  t.deepEqual(country('JP')?.slice(1), ['map-3', 'Japan: 25 visits']);
  t.deepEqual(country('BR')?.slice(1), ['map-1', 'Brazil: 1 visit']);
  t.deepEqual(country('FR')?.slice(1), ['map-0', 'France: 0 visits']);
  t.is(country('SG'), null, 'Singapore is too small for a 1:110m map: the table has it');
  t.regex(svg, /<title id="map-title">Visits &lt;by&gt; country<\/title>/);
  t.regex(svg, /<desc id="map-desc">Human visits by country: Germany 100, Japan 25, Brazil 1\.<\/desc>/);
  t.true(svg.match(/<path /g)!.length > 150, 'every country drawn');
});
