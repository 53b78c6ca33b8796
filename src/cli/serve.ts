import { createServer } from 'node:http';
import { once } from 'node:events';
import { createApp } from '../app.ts';
import { describeConfig } from '../config.ts';
import { defaultDeps } from '../deps.ts';
import { loadNativeBinding } from '../store/native.ts';
import { startBackground } from '../store/background.ts';
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
    const kurz = createApp(config, deps, { nativeBinding: loadNativeBinding(config.cacheDir) });
    const { visits, creations } = kurz.services;
    const background = startBackground(kurz.db, config.db, config.cacheDir, deps.log, (counts) => visits.restore(counts));
    visits.offloadTo(background.offload);
    const server = createServer({ keepAliveTimeout: 5_000 }, kurz.callback);
    server.listen(config.port, config.host);
    try {
      await once(server, 'listening');
    } catch (err) {
      await background.stop();
      kurz.close();
      const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new Error(`cannot listen on ${config.host}:${config.port}: ${reason}`, { cause: err });
    }
    const address = server.address();
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
        // Creations whose clients hung up are still queued; they are written before the database closes.
        await creations.idle();
        // The background process writes the visits it holds; any it could not take are written here.
        visits.flush();
        await background.stop();
        kurz.close();
        deps.log.info('stopped; visits flushed and database closed');
      });
      server.closeIdleConnections();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    return undefined;
  },
};
