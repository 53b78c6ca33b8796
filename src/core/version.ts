/** kurz's version; a test keeps it equal to package.json's. */
export const VERSION = '0.1.0';

// Written into the bundle by scripts/bundle.ts; absent when kurz runs from its source.
declare const KURZ_COMMIT: string | undefined;

/** The git commit kurz was built from, "-dirty" when its sources had changes then; "unknown" outside a build from git. */
export const COMMIT: string = typeof KURZ_COMMIT === 'string' ? KURZ_COMMIT : 'unknown';
