import test from 'ava';
import { createRateLimits, MAX_KEYS, RateLimit, refusalCounts, type LimitRule } from '../../src/auth/rate-limits.ts';
import { AppError } from '../../src/core/errors.ts';
import { fakeClock } from '../helpers.ts';

function perMinute(limit: number, clock = fakeClock()) {
  return { clock, limit: new RateLimit({ name: 'not_found', limit, window: 60_000, message: 'too many', now: clock.now }) };
}

/** The wait a refusal tells the client, in seconds; 0 when there is no refusal. */
const retryAfter = (refused: AppError | undefined): number => refused?.retryAfter ?? 0;

test('a window limit: N events per key, then 429 until the window that began with the first one ends', (t) => {
  const { clock, limit } = perMinute(3);
  for (let i = 0; i < 3; i++) {
    t.is(limit.check('a'), undefined, `event ${i + 1} is let in`);
    limit.failed('a');
    clock.advance(10_000);
  }
  const refused = limit.check('a');
  t.true(refused instanceof AppError);
  t.is(refused?.code, 'rate_limited');
  t.is(refused?.message, 'too many; try again in 30 s');
  t.is(retryAfter(refused), 30, 'the window began 30 s ago');
  t.is(limit.check('b'), undefined, 'another key is not affected');
  clock.advance(29_001);
  t.is(retryAfter(limit.check('a')), 1, 'Retry-After is rounded up to whole seconds');
  clock.advance(999);
  t.is(limit.check('a'), undefined, 'the window has passed');
  limit.failed('a');
  t.is(limit.check('a'), undefined, 'a new window counts from zero');
  t.is(limit.refused, 2);
});

test('take counts creations while the key is under the limit, a batch by its size', (t) => {
  const { clock, limit } = perMinute(10);
  t.is(limit.take('a', 9), undefined);
  t.is(limit.take('a', 5), undefined, 'under the limit, a batch is let in whole and takes the key over');
  const refused = limit.take('a', 1);
  t.is(retryAfter(refused), 60);
  t.is(limit.take('b', 10), undefined, 'another key has its own count');
  clock.advance(60_000);
  t.is(limit.take('a', 1), undefined);
  t.is(limit.refused, 1);
});

test('a growing limit: after N failures the key waits 1 s, doubling with each further failure up to 15 minutes; a success clears it', (t) => {
  const clock = fakeClock();
  const rule: LimitRule = { name: 'login', limit: 2, window: 1000, growTo: 15 * 60_000, message: 'too many failed logins', now: clock.now };
  const limit = new RateLimit(rule);
  limit.failed('k');
  t.is(limit.check('k'), undefined);
  limit.failed('k');
  t.is(retryAfter(limit.check('k')), 1);
  clock.advance(1000);
  t.is(limit.check('k'), undefined, 'the wait is over');
  const waits: number[] = [];
  for (let i = 0; i < 12; i++) {
    limit.failed('k');
    const wait = retryAfter(limit.check('k'));
    waits.push(wait);
    clock.advance(wait * 1000);
  }
  t.deepEqual(waits, [2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
  limit.failed('k');
  limit.succeeded('k');
  t.is(limit.check('k'), undefined, 'a success forgets the failures');
  limit.failed('k');
  t.is(limit.check('k'), undefined, 'and counts from zero again');
});

test('check with two keys answers with the longer wait and counts one refusal', (t) => {
  const clock = fakeClock();
  const limit = new RateLimit({ name: 'login', limit: 1, window: 1000, growTo: 60_000, message: 'm', now: clock.now });
  limit.failed('client');
  for (let i = 0; i < 3; i++) limit.failed('account');
  t.is(retryAfter(limit.check('client', 'account')), 4);
  t.is(retryAfter(limit.check('fresh client', 'account')), 4);
  t.is(limit.refused, 2);
});

test('a limit of 0 is off: it never refuses and remembers nothing', (t) => {
  const { limit } = perMinute(0);
  for (let i = 0; i < 1000; i++) {
    limit.failed('a');
    t.is(limit.take('a', 1000), undefined);
  }
  t.is(limit.check('a'), undefined);
  t.is(limit.size, 0);
  t.false(limit.mayWait);
});

test('memory is bounded under a flood of distinct clients; the key counted last is kept', (t) => {
  const { limit } = perMinute(1);
  limit.failed('scanner');
  for (let i = 0; i < 3 * MAX_KEYS; i++) {
    limit.failed(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    if (i % 1000 === 0) limit.failed('scanner');
  }
  t.is(limit.size, MAX_KEYS);
  t.truthy(limit.check('scanner'), 'a key that keeps failing is not pushed out');
  t.truthy(limit.check(`10.0.${(3 * MAX_KEYS - 1) >> 8}.${(3 * MAX_KEYS - 1) & 255}`), 'the last client waits');
  t.is(limit.check('10.0.0.0'), undefined, 'the least recently counted ones are forgotten');
});

test('a check reads no clock for a key with nothing counted, nor at all once the last wait has passed', (t) => {
  const clock = fakeClock();
  let readings = 0;
  const now = () => (readings++, clock.now());
  const limit = new RateLimit({ name: 'not_found', limit: 1, window: 60_000, message: 'm', now });
  t.false(limit.mayWait);
  limit.failed('x');
  t.true(limit.mayWait);
  readings = 0;
  t.is(limit.check('y'), undefined);
  t.is(readings, 0, 'another client is one map lookup');
  t.truthy(limit.check('x'));
  t.is(readings, 1);
  clock.advance(60_000);
  t.is(limit.check('x'), undefined);
  t.false(limit.mayWait, 'the last wait has passed');
  readings = 0;
  for (let i = 0; i < 100; i++) t.is(limit.check('x'), undefined);
  t.is(readings, 0, 'nothing looked up: nobody waits');
});

test('the limits of a config, each named for the refusal counts', (t) => {
  const clock = fakeClock();
  const limits = createRateLimits(
    {
      creationRateLimit: 1,
      anonymousRateLimit: 1,
      loginRateLimit: 1,
      unlockRateLimit: 1,
      apiKeyRateLimit: 1,
      notFoundRateLimit: 1,
    },
    clock.now,
  );
  limits.apiKey.failed('a');
  limits.apiKey.check('a');
  limits.apiKey.check('a');
  limits.notFound.failed('a');
  limits.notFound.check('a');
  t.deepEqual(refusalCounts(limits), [
    { limit: 'creation', refused: 0 },
    { limit: 'anonymous_creation', refused: 0 },
    { limit: 'login', refused: 0 },
    { limit: 'unlock', refused: 0 },
    { limit: 'api_key', refused: 2 },
    { limit: 'not_found', refused: 1 },
  ]);
});

/** A step of an attempt script: an attempt on keys (the Retry-After it must get, 0 when let in), a success, or time passing. */
type Step = ['attempt', string[], number] | ['succeeded', string[]] | ['advance', number];

const ATTEMPTS: Array<[string, number, Step[]]> = [
  [
    'attempts counted before any answer: a burst is let in up to the limit, the rest refused at once',
    3,
    [
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 1],
      ['attempt', ['k'], 1],
    ],
  ],
  [
    'a success forgets its own provisional failure and the earlier ones',
    2,
    [
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 0],
      ['succeeded', ['k']],
      ['attempt', ['k'], 0],
      ['succeeded', ['k']],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 1],
    ],
  ],
  [
    'a wait grows with each further failure let in after it',
    1,
    [
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 1],
      ['advance', 1000],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 2],
      ['advance', 2000],
      ['attempt', ['k'], 0],
      ['attempt', ['k'], 4],
    ],
  ],
  [
    'several keys: refused while any waits (the longest wait), and a refused attempt counts on none',
    2,
    [
      ['attempt', ['client a', 'link'], 0],
      ['attempt', ['client b', 'link'], 0],
      ['attempt', ['client c', 'link'], 1],
      ['attempt', ['client c'], 0],
      ['attempt', ['client c'], 0],
      ['attempt', ['client c'], 1],
    ],
  ],
  [
    'a success clears only the keys it names',
    1,
    [
      ['attempt', ['device'], 0],
      ['attempt', ['client', 'account'], 0],
      ['succeeded', ['device']],
      ['attempt', ['device'], 0],
      ['attempt', ['client', 'account'], 1],
    ],
  ],
];

for (const [name, max, steps] of ATTEMPTS) {
  test(`attempt: ${name}`, (t) => {
    const clock = fakeClock();
    const limit = new RateLimit({ name: 'login', limit: max, window: 1000, growTo: 15 * 60_000, message: 'm', now: clock.now });
    let refusals = 0;
    for (const [i, step] of steps.entries()) {
      if (step[0] === 'advance') clock.advance(step[1]);
      else if (step[0] === 'succeeded') limit.succeeded(...step[1]);
      else {
        const wait = retryAfter(limit.attempt(...step[1]));
        if (wait > 0) refusals++;
        t.is(wait, step[2], `step ${i + 1}: attempt ${step[1].join(', ')}`);
      }
    }
    t.is(limit.refused, refusals, 'each refusal is counted');
  });
}

test('attempt on a limit of 0 lets everything in and remembers nothing', (t) => {
  const limit = new RateLimit({ name: 'unlock', limit: 0, window: 1000, growTo: 60_000, message: 'm', now: fakeClock().now });
  for (let i = 0; i < 100; i++) t.is(limit.attempt('a', 'b'), undefined);
  t.is(limit.size, 0);
});
