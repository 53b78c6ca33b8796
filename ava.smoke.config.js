// `make smoke`: the tests that run the built executable (dist/kurz) instead of the source.
export default {
  files: ['test/binary/**/*.test.ts'],
  extensions: ['ts'],
  timeout: '120s',
  concurrency: 1,
};
