// Cost of making one code: `node bench/codes.ts`. Obfuscated codes should cost under 20 µs each.
import { randomBytes } from 'node:crypto';
import { createCodeGenerator } from '../src/codes/code-generator.ts';
import type { CodeGeneratorOptions } from '../src/codes/code-generator.ts';

const WARM_UP_MS = 500;
const MEASURE_MS = 2000;
const key = randomBytes(32);

const cases: [name: string, options: CodeGeneratorOptions][] = [
  ['obfuscated, length 6', { mode: 'obfuscated', length: 6, key, offset: 0 }],
  ['obfuscated, length 10', { mode: 'obfuscated', length: 10, key, offset: 0 }],
  ['sequential', { mode: 'sequential', length: 6, key, offset: 0 }],
];

// Runs codeFor on consecutive ids for `ms` milliseconds; returns [calls, elapsed ms].
function run(codeFor: (id: number) => string, firstId: number, ms: number): [number, number] {
  const start = performance.now();
  let id = firstId;
  let length = 0;
  while (performance.now() - start < ms) {
    // Batches keep the clock out of the measurement.
    for (let k = 0; k < 1000; k++) length += codeFor(id++).length;
  }
  const elapsed = performance.now() - start;
  if (length === 0) throw new Error('no codes made');
  return [id - firstId, elapsed];
}

console.log(`node ${process.version}, ${MEASURE_MS} ms per case after ${WARM_UP_MS} ms warm-up`);
for (const [name, options] of cases) {
  const generator = createCodeGenerator(options);
  run(generator.codeFor, 1, WARM_UP_MS);
  const [calls, elapsed] = run(generator.codeFor, 1_000_000, MEASURE_MS);
  const opsPerSecond = (calls / elapsed) * 1000;
  const microseconds = (elapsed * 1000) / calls;
  console.log(
    `${name.padEnd(24)} ${Math.round(opsPerSecond).toLocaleString('en').padStart(12)} ops/s  ${microseconds.toFixed(2).padStart(7)} µs/code`,
  );
}
