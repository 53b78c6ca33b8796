// `make deb-test`: installs dist/kurz_VERSION_amd64.deb into a throwaway Debian root (needs root, dpkg, debootstrap).
export default {
  files: ['test/package/debian-package.test.ts'],
  extensions: ['ts'],
  timeout: '120s',
  concurrency: 1,
};
