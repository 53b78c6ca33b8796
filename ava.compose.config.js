// `make compose-test`: docs/compose.yml's two set-ups on a docker daemon of the test's own (test/package/compose.test.ts).
export default {
  files: ['test/package/compose.test.ts'],
  extensions: ['ts'],
  timeout: '300s',
  concurrency: 1,
};
