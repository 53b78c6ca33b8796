/**
 * The Node options kurz runs with wherever it starts: embedded in the executable (`execArgv` of the SEA
 * config), given to the bundle by `make run` and the benchmark, and to the background writer's process.
 *
 * `--max-semi-space-size=4`: a server answering tens of thousands of small requests a second otherwise
 * grows each half of V8's young generation to 16 MiB and keeps it.
 * `--heap-growing-percent=30`: a server whose garbage is cheap to collect otherwise lets the old
 * generation quadruple between full collections. Measurements: docs/ARCHITECTURE.md, "Memory".
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=30'];
