// `make image-test`: loads dist/kurz-image.tar into podman and runs it (test/package/image.test.ts).
export default {
  files: ['test/package/image.test.ts'],
  extensions: ['ts'],
  timeout: '300s',
  concurrency: 1,
};
