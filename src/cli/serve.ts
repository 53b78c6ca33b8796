import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { createApp } from '../app.ts';
import { describeConfig } from '../config.ts';
import { defaultDeps } from '../deps.ts';
import type { Command } from './command.ts';

/** How long shutdown waits for open requests before cutting connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export const serve: Command = {
  summary: 'Start the web server (the default command). Stops cleanly on SIGTERM/SIGINT.',
  usage: 'serve [--host ADDR] [--port N] [--db FILE] [--public-url URL] [--config FILE]',
  flags: {},
  positionals: [0, 0],
  async run({ config }) {
    const deps = defaultDeps();
    deps.log.info('starting kurz', { config: describeConfig(config) });
    const isNew = config.db !== ':memory:' && !existsSync(config.db);
    const kurz = await createApp(config, deps);
    const server = createServer({ keepAliveTimeout: 5_000 }, kurz.callback);
    server.listen(config.port, config.host);
    try {
      await once(server, 'listening');
    } catch (err) {
      await kurz.close();
      // A start that failed leaves no empty database behind, for the next attempt to mistake for a real one.
      if (isNew) for (const suffix of ['', '-wal', '-shm']) rmSync(config.db + suffix, { force: true });
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(`cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: err });
    }
    const address = server.address();
    if (typeof address === 'object' && address) kurz.listeningOn(address);
    const port = typeof address === 'object' && address ? address.port : config.port;
    deps.log.info('listening', { address: `${config.host}:${port}`, publicUrl: config.publicUrl });
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    process.stdout.write(`kurz is running: open http://${host}:${port}/ (short links use ${config.publicUrl})\n`);

    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      deps.log.info('shutting down', { signal });
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      server.close(async () => {
        clearTimeout(force);
        // Writes whose clients hung up are still queued; they are written before the database closes, and
        // the background writer writes the visits it holds.
        await kurz.close();
        deps.log.info('stopped; visits flushed and database closed');
      });
      server.closeIdleConnections();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    return undefined;
  },
};
