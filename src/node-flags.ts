/**
 * The Node options kurz runs with wherever it starts: embedded in the executable (`execArgv` of the SEA
 * config), and given to the bundle by `make run` and the benchmark.
 *
 * `--max-semi-space-size=4`: V8 lets each half of the young generation grow to 16 MiB under load, and a
 * server answering tens of thousands of small requests a second fills it and keeps it. Capped at 4 MiB,
 * RSS under cold load over 1M links fell from 169–176 to 120–122 MiB, and on hot redirects from 110 to
 * 105 MiB; throughput in ten alternated pairs was lower with the cap in six, by less than the machine's
 * own run-to-run noise.
 *
 * `--heap-growing-percent=30`: after a full collection V8 lets the old generation grow by a factor it picks
 * between 1.1 and 4 from how cheap collecting has been, and a server whose garbage is cheap to collect gets
 * the 4. Under cold load over 1M links that took the peak RSS (VmHWM) of a 10 s run to 130-152 MiB in three
 * runs of six, against 113-115 MiB in the others. Growing by 30% at most, the peak was 113-115 MiB in all
 * four runs (112-117 MiB in ten with 50%). CPU per request and per created link, alternated, showed no
 * difference outside the noise: a full collection of this ~20 MB heap takes about 5 ms, every second or two.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=30'];
