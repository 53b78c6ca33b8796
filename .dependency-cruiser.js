/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes load order and ownership unclear; type-only imports count too.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'sqlite-only-from-wiring',
      comment:
        'Only the composition roots (src/app.ts, src/cli/wiring.ts) and the backend choice (src/store/open.ts) may know the store is SQLite.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli/wiring[.]ts$|store/open[.]ts$|store/sqlite/)' },
      to: { path: '^src/store/sqlite/' },
    },
    {
      name: 'processes-in-cluster',
      comment:
        'Forking workers and child processes, and their IPC, live in src/cluster/ (one typed channel per concern). The one exception is src/scheduled-backups.ts: it runs `kurz backup` as a one-shot command and reads its exit code, with no IPC and no supervision.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cluster/', 'scheduled-backups[.]ts$'] },
      to: { path: '^(node:)?(cluster|child_process)$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Parse with TypeScript before compilation, so `import type` edges are kept.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages through their "exports" maps (e.g. csv-parse/sync), as Node does.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default', 'types'] },
  },
};
