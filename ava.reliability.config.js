// `make test-reliability`: the long-running tests (crashes, faults, load, slow clients, the CI soak), one
// file at a time so that each has the machine to itself; each prints its figures with t.log.
export default {
  files: ['test/reliability/**/*.test.ts'],
  extensions: ['ts'],
  timeout: '300s',
  concurrency: 1,
  verbose: true,
};
