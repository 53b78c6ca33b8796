/**
 * The Node options kurz runs with wherever it starts: embedded in the executable (`execArgv` of the SEA
 * config), and given to the bundle by `make run` and the benchmark.
 *
 * `--max-semi-space-size=4`: V8 lets each half of the young generation grow to 16 MiB under load, and a
 * server answering tens of thousands of small requests a second fills it and keeps it. Capped at 4 MiB,
 * RSS under cold load over 1M links fell from 169–176 to 120–122 MiB, and on hot redirects from 110 to
 * 105 MiB; throughput in ten alternated pairs was lower with the cap in six, by less than the machine's
 * own run-to-run noise.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4'];
