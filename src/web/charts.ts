import { COUNTRY_PATHS, MAP_HEIGHT, MAP_WIDTH } from './world-map-paths.ts';

/** One bar: the start of its hour or day (ms since epoch, UTC) and its counts. */
export interface ChartPoint {
  t: number;
  humans: number;
  bots: number;
}

/** What `barChart` draws. */
export interface BarChartOptions {
  /** Unique within the page; used for the ids of <title>/<desc> (aria-labelledby). */
  id: string;
  /** The accessible name, e.g. "Human visits per hour, last 48 hours (UTC)". */
  title: string;
  granularity: 'hour' | 'day';
  /** Already bucketed and zero-filled, oldest first. */
  points: readonly ChartPoint[];
}

// Logical size. The page scales the SVG to its container, so views/kurz.css raises the label size on
// narrow screens; the margins leave room for labels up to LABEL_MAX units high.
const WIDTH = 640;
const HEIGHT = 240;
const LABEL_MAX = 22;
const TOP = Math.ceil(LABEL_MAX / 2) + 3;
const BOTTOM = Math.ceil(LABEL_MAX * 2.6) + 4;
/** Room for half of the widest x label ("23 Nov") past the last bar's centre. */
const RIGHT = Math.ceil(LABEL_MAX * 1.7);
const DIGIT_WIDTH = LABEL_MAX * 0.57;
/** Closest two x labels may be, in logical units, so "23 Nov" never touches its neighbour. */
const LABEL_SPACING = LABEL_MAX * 4.4;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HOUR_STEPS = [1, 2, 3, 6, 12, 24, 48, 168];
const DAY_STEPS = [1, 2, 7, 14, 28, 56, 91, 182, 364];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const BLOCKS = '▁▂▃▄▅▆▇█';

/** An accessible SVG bar chart of human visits (bots are never drawn as visits). */
export function barChart(options: BarChartOptions): string {
  const { id, granularity, points } = options;
  const humans = points.map((p) => Math.max(0, p.humans));
  const frame = frameOf(Math.max(0, ...humans), points.length);
  const { baseline, y, centre } = frame;
  const barWidth = Math.min(frame.band * 0.8, 40);
  const parts = [svgOpen(id, 'chart', options.title, summary(options)), ...yAxis(frame)];
  points.forEach((p, i) => {
    if (humans[i] === 0) return;
    // A bar stays at least a unit high, so one visit next to thousands is still seen.
    const height = Math.max(1, baseline - y(humans[i] ?? 0));
    parts.push(
      `<rect class="chart-bar" x="${num(centre(i) - barWidth / 2)}" y="${num(baseline - height)}" width="${num(barWidth)}" height="${num(height)}" data-t="${new Date(p.t).toISOString()}" data-value="${humans[i]}">` +
        `<title>${escapeXml(tooltip(p, granularity))}</title></rect>`,
    );
  });
  parts.push(`<line class="axis" x1="${frame.left}" y1="${baseline}" x2="${frame.right}" y2="${baseline}"/>`);
  parts.push(...xLabels(frame, points, granularity), ...emptyNote(frame), '</svg>');
  return parts.join('\n');
}

/** The plot of a chart of `buckets` buckets up to `peak`: its scale, its bounds and where a value or a bucket goes. */
function frameOf(peak: number, buckets: number) {
  const scaleMax = peak === 0 ? 0 : niceCeil(peak);
  const ticks = scaleMax === 0 ? [0] : [0, scaleMax / 2, scaleMax].filter(Number.isInteger);
  // Wide enough for the longest y label, and for half of an x label centred under the first bar.
  const left = Math.max(RIGHT + 6, Math.ceil(16 + DIGIT_WIDTH * Math.max(...ticks.map((v) => thousands(v).length))));
  const right = WIDTH - RIGHT;
  const baseline = HEIGHT - BOTTOM;
  const plotHeight = baseline - TOP;
  const band = (right - left) / Math.max(1, buckets);
  return {
    peak,
    ticks,
    left,
    right,
    baseline,
    plotHeight,
    band,
    y: (value: number) => (scaleMax === 0 ? baseline : baseline - (value / scaleMax) * plotHeight),
    centre: (i: number) => left + band * (i + 0.5),
  };
}
type Frame = ReturnType<typeof frameOf>;

/** The opening of a chart's SVG, named by its <title> and described by its <desc> (aria-labelledby). */
function svgOpen(id: string, classes: string, title: string, desc: string): string {
  const at = escapeXml(id);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="xMidYMid meet" class="${classes}" role="img" aria-labelledby="${at}-title ${at}-desc">\n` +
    `<title id="${at}-title">${escapeXml(title)}</title>\n<desc id="${at}-desc">${escapeXml(desc)}</desc>`
  );
}

/** The grid lines and the y labels. */
function yAxis({ ticks, left, right, baseline, y }: Frame): string[] {
  return ticks.flatMap((value) => [
    ...(value > 0 ? [`<line class="chart-grid" x1="${left}" y1="${num(y(value))}" x2="${right}" y2="${num(y(value))}"/>`] : []),
    `<text class="axis-label" text-anchor="end" x="${left - 8}" y="${num(value === 0 ? baseline : y(value))}" dy="0.35em">${thousands(value)}</text>`,
  ]);
}

/** The x labels, spaced so that none touches its neighbour; by the hour, the date under each midnight. */
function xLabels({ band, baseline, centre }: Frame, points: readonly ChartPoint[], granularity: 'hour' | 'day'): string[] {
  const step = labelStep(granularity, band);
  return points.flatMap((p, i) => {
    if (!isLabelled(p.t, granularity, step)) return [];
    const x = num(centre(i));
    const date = dayLabel(p.t);
    const labels = [
      `<text class="axis-label" text-anchor="middle" x="${x}" y="${baseline + 6}" dy="0.9em">${granularity === 'day' ? date : hourLabel(p.t)}</text>`,
    ];
    if (granularity === 'hour' && new Date(p.t).getUTCHours() === 0)
      labels.push(`<text class="axis-label" text-anchor="middle" x="${x}" y="${baseline + 6}" dy="2.1em">${date}</text>`);
    return labels;
  });
}

/** "No human visits in this period" across an empty plot. */
function emptyNote({ peak, left, right, plotHeight }: Frame): string[] {
  return peak > 0
    ? []
    : [
        `<text class="chart-empty" text-anchor="middle" x="${num((left + right) / 2)}" y="${num(TOP + plotHeight / 2)}" dy="0.35em">No human visits in this period</text>`,
      ];
}

/**
 * A bar as wide as `count`'s share of `total` (0 to 100 units), beside a breakdown's figures. Hidden from
 * screen readers: the count and share stay text in the table. Attributes, not styles (the CSP allows no inline style).
 */
export function shareBar(count: number, total: number): string {
  const share = total > 0 && count > 0 ? Math.max(0.5, Math.min(100, (100 * count) / total)) : 0;
  return (
    `<svg class="share-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">` +
    `<rect class="share-track" width="100" height="10"/><rect class="share-fill" width="${num(share)}" height="10"/></svg>`
  );
}

/** One link's line in a comparison: its name (the legend's) and its counts, oldest first, on the same buckets as the others'. */
export interface LineSeries {
  name: string;
  points: readonly ChartPoint[];
}

/** Lines a comparison can tell apart by colour and dash (views/kurz.css: .series-0 to .series-4). */
export const MAX_SERIES = 5;
const DASHES = ['', '10 5', '3 4', '14 4 3 4', '1 6'];

/**
 * An accessible SVG line chart of human visits, one line per series (at most MAX_SERIES), each in its own
 * colour and dash so that they stay apart without colour; the legend is the page's (same classes).
 */
export function lineChart(options: { id: string; title: string; granularity: 'hour' | 'day'; series: readonly LineSeries[] }): string {
  const { id, granularity, series } = options;
  const first = series[0]?.points ?? [];
  const frame = frameOf(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.humans))), first.length);
  const { y, centre } = frame;
  const totals = series.map((s) => `${s.name}: ${thousands(s.points.reduce((sum, p) => sum + Math.max(0, p.humans), 0))}`);
  const desc = `Human visits in ${thousands(first.length)} ${granularity}s. ${totals.join('; ')}.`;
  const parts = [svgOpen(id, 'chart line-chart', options.title, desc), ...yAxis(frame)];
  parts.push(`<line class="axis" x1="${frame.left}" y1="${frame.baseline}" x2="${frame.right}" y2="${frame.baseline}"/>`);
  series.slice(0, MAX_SERIES).forEach((s, n) => {
    const path = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${num(centre(i))} ${num(y(Math.max(0, p.humans)))}`).join('');
    const dash = DASHES[n] ? ` stroke-dasharray="${DASHES[n]}"` : '';
    parts.push(
      `<g class="series series-${n}"><title>${escapeXml(`${s.name}: ${totals[n]!.slice(s.name.length + 2)} human visits`)}</title>`,
    );
    parts.push(`<path class="series-line" d="${path}" fill="none"${dash}/>`);
    // A point marks each bucket when there are few, so a single day is seen.
    if (s.points.length <= 40)
      s.points.forEach((p, i) =>
        parts.push(
          `<circle class="series-point" cx="${num(centre(i))}" cy="${num(y(Math.max(0, p.humans)))}" r="3"><title>${escapeXml(`${s.name}, ${tooltip(p, granularity)}`)}</title></circle>`,
        ),
      );
    parts.push('</g>');
  });
  parts.push(...xLabels(frame, first, granularity), ...emptyNote(frame), '</svg>');
  return parts.join('\n');
}

/** A small trend line of `values` (oldest first) to sit beside a figure; decorative, the figure says the count. */
export function trendLine(values: readonly number[]): string {
  const w = 120;
  const h = 28;
  const clean = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
  const max = Math.max(1, ...clean);
  const x = (i: number) => (clean.length < 2 ? w / 2 : 1 + ((w - 2) * i) / (clean.length - 1));
  const y = (v: number) => h - 2 - ((h - 4) * v) / max;
  const path = clean.map((v, i) => `${i === 0 ? 'M' : 'L'}${num(x(i))} ${num(y(v))}`).join('');
  return (
    `<svg class="trend" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" aria-hidden="true" focusable="false">` +
    `<line class="trend-base" x1="0" y1="${h - 1}" x2="${w}" y2="${h - 1}"/><path class="trend-line" d="${path}" fill="none"/></svg>`
  );
}

/**
 * A choropleth of visits by country (ISO 3166-1 alpha-2 codes, as the GeoIP database gives them): each
 * country shaded in one of five steps of its share of the busiest one's, with a <title> naming it and its
 * count. Codes the map has no outline for (small islands, "unknown") stay in the table beside it.
 */
export function worldMap(options: { id: string; title: string; entries: ReadonlyArray<{ name: string; count: number }> }): string {
  const { id, entries } = options;
  const counts = new Map(entries.filter((e) => e.count > 0).map((e) => [e.name.toUpperCase(), e.count]));
  const peak = Math.max(0, ...counts.values());
  const shown = [...counts].filter(([code]) => COUNTRY_PATHS[code] !== undefined);
  const described = shown
    .slice(0, 10)
    .map(([code, count]) => `${COUNTRY_PATHS[code]!.name} ${thousands(count)}`)
    .join(', ');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${MAP_WIDTH} ${MAP_HEIGHT}" class="world-map" role="img" aria-labelledby="${escapeXml(id)}-title ${escapeXml(id)}-desc">`,
    `<title id="${escapeXml(id)}-title">${escapeXml(options.title)}</title>`,
    `<desc id="${escapeXml(id)}-desc">${escapeXml(shown.length === 0 ? 'No visits from a known country.' : `Human visits by country: ${described}${shown.length > 10 ? ', and more' : ''}.`)}</desc>`,
  ];
  for (const [code, country] of Object.entries(COUNTRY_PATHS)) {
    const count = counts.get(code) ?? 0;
    // Five steps by the share of the busiest country's count, on a square-root scale so one busy country leaves the rest visible.
    const step = count === 0 ? 0 : Math.max(1, Math.ceil(5 * Math.sqrt(count / peak)));
    const label = `${country.name}: ${thousands(count)} visit${count === 1 ? '' : 's'}`;
    parts.push(`<path class="country map-${step}" d="${country.d}" data-country="${code}"><title>${escapeXml(label)}</title></path>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}

/** A one-line text sparkline of `values` using ▁▂▃▄▅▆▇█ (all zero → all ▁; empty → ''). */
export function sparkline(values: readonly number[]): string {
  const clean = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
  const max = Math.max(0, ...clean);
  // Any visit at all shows above ▁, so a quiet hour is told apart from an empty one.
  return clean.map((v) => BLOCKS[v === 0 ? 0 : Math.max(1, Math.round((v / max) * 7))]).join('');
}

/** The plain-language summary read out by screen readers. */
function summary({ granularity, points }: BarChartOptions): string {
  const span = `${thousands(points.length)} ${granularity}${points.length === 1 ? '' : 's'}`;
  let total = 0;
  let busiest: ChartPoint | undefined;
  for (const p of points) {
    total += Math.max(0, p.humans);
    if (p.humans > 0 && (busiest === undefined || p.humans > busiest.humans)) busiest = p;
  }
  if (busiest === undefined) return points.length === 0 ? 'No human visits in this period.' : `No human visits in ${span}.`;
  const visits = `${thousands(total)} human visit${total === 1 ? '' : 's'}`;
  return `${visits} in ${span}; the busiest ${granularity} was ${timeLabel(busiest.t, granularity)} with ${thousands(busiest.humans)}.`;
}

function tooltip(p: ChartPoint, granularity: BarChartOptions['granularity']): string {
  const humans = `${thousands(p.humans)} human visit${p.humans === 1 ? '' : 's'}`;
  const bots = p.bots > 0 ? `, ${thousands(p.bots)} bot visit${p.bots === 1 ? '' : 's'}` : '';
  return `${timeLabel(p.t, granularity)}: ${humans}${bots}`;
}

/** The smallest 1, 2 or 5 × 10^n at or above `value`; at least 2, so the middle gridline is a whole number. */
function niceCeil(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  const nice = [1, 2, 5, 10].map((m) => m * power).find((v) => v >= value) ?? 10 * power;
  return Math.max(2, nice);
}

/** Hours or days between x labels: the fewest that keep labels LABEL_SPACING apart. */
function labelStep(granularity: BarChartOptions['granularity'], band: number): number {
  const steps = granularity === 'hour' ? HOUR_STEPS : DAY_STEPS;
  return steps.find((s) => s * band >= LABEL_SPACING) ?? steps[steps.length - 1]!;
}

/** Labels sit on calendar boundaries (midnight, a Monday) rather than wherever the data starts. */
function isLabelled(t: number, granularity: BarChartOptions['granularity'], step: number): boolean {
  // The epoch began on a Thursday at midnight; weekly steps start on Mondays.
  const unit = granularity === 'hour' ? HOUR : DAY;
  const week = granularity === 'hour' ? 168 : 7;
  return (Math.floor(t / unit) + (step % week === 0 ? (3 * week) / 7 : 0)) % step === 0;
}

function timeLabel(t: number, granularity: BarChartOptions['granularity']): string {
  return granularity === 'hour' ? `${hourLabel(t)} on ${dayLabel(t)}` : dayLabel(t);
}

function hourLabel(t: number): string {
  return `${String(new Date(t).getUTCHours()).padStart(2, '0')}:00`;
}

function dayLabel(t: number): string {
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** 1234567 → "1,234,567", the same on every machine whatever its locale. */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Coordinates to two decimals, so the output is short and stable. */
function num(n: number): string {
  return String(Math.round(n * 100) / 100);
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}
