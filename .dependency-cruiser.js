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
        'Forking workers and child processes, and their IPC, live in src/cluster/ (one typed channel per concern). The one exception is src/store/scheduled-backups.ts: it runs `kurz backup` as a one-shot command and reads its exit code, with no IPC and no supervision.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/cluster/', '^src/store/scheduled-backups[.]ts$'] },
      to: { path: '^(node:)?(cluster|child_process)$' },
    },
    // The layers of docs/ARCHITECTURE.md, bottom up: core; the domain (links, domains, auth, audit, visits, cache, codes,
    // blocklist, transfer, rules) over store/ports; http; edge and web; the composition root (app, services, context,
    // deps, config); cli. A layer imports only layers below it.
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'src/core/ (errors, log, histogram, strict JSON, files, redaction, version) is the bottom layer.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'config-over-core-only',
      comment: 'src/config.ts reads the settings; every layer may read them, so it imports only src/core/.',
      severity: 'error',
      from: { path: '^src/config[.]ts$' },
      to: { path: '^src/', pathNot: '^src/(core/|config[.]ts$)' },
    },
    {
      name: 'domain-below-the-web',
      comment: 'The domain knows no HTTP, pages, processes or command line: a later surface reuses it as it is.',
      severity: 'error',
      from: { path: '^src/(links|domains|auth|audit|visits|cache|codes|blocklist|transfer|rules|webhooks)/' },
      to: { path: '^src/(http|edge|web|cli|cluster)/|^src/(app|services|context|deps)[.]ts$' },
    },
    {
      name: 'domain-through-the-ports',
      comment: 'The domain reaches storage only through store/ports.ts; a backend is picked by the composition root.',
      severity: 'error',
      from: { path: '^src/(links|domains|auth|audit|visits|cache|codes|blocklist|transfer|rules|webhooks|http|edge|web)/' },
      to: { path: '^src/store/', pathNot: '^src/store/ports[.]ts$' },
    },
    {
      name: 'stores-below-the-web',
      comment: 'A backend implements the ports; it knows nothing of HTTP, pages, processes or the command line.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/(http|edge|web|cli|cluster)/|^src/(app|services|context)[.]ts$' },
    },
    {
      name: 'rules-are-pure',
      comment:
        "src/rules/ (a link's redirect rules: the model, its validation, the decision) reads only core/, the links' rules and visits/classify.ts: no storage, no config, no I/O.",
      severity: 'error',
      from: { path: '^src/rules/' },
      to: { path: '^src/', pathNot: '^src/(core/|rules/|links/|visits/classify[.]ts$)' },
    },
    {
      name: 'http-below-edge-and-web',
      comment: 'src/http/ (the pipeline, bodies, answers) serves both the edge and Koa; it imports neither.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(edge|web|cli|cluster)/|^src/(app|services)[.]ts$' },
    },
    {
      name: 'web-and-edge-below-the-root',
      comment: 'Handlers get their services from context.ts; only app.ts and the CLI assemble them.',
      severity: 'error',
      from: { path: '^src/(edge|web)/' },
      to: { path: '^src/(cli|cluster)/|^src/(app|services)[.]ts$' },
    },
    {
      name: 'nothing-imports-the-cli',
      comment: 'The command line is the top: src/main.ts hands it argv; nothing else imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli/|main[.]ts$)' },
      to: { path: '^src/cli/' },
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
