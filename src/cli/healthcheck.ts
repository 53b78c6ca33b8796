import { CommandError, EXIT, type Command } from './command.ts';

/** How long an answer may take: a server that answers later is not healthy for a container's check either. */
const TIMEOUT_MS = 5_000;

export const healthcheck: Command = {
  summary: 'Ask the kurz server of this configuration (--host, --port) for /healthz: exit 0 when it answers ok, else 1 saying why.',
  usage: 'healthcheck',
  examples: ['kurz healthcheck --port 8080 && echo healthy'],
  flags: {},
  positionals: [0, 0],
  async run({ config, out }) {
    const url = `http://${loopbackFor(config.host)}:${config.port}/healthz`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
    } catch (err) {
      throw new CommandError(`healthcheck: no answer from ${url}: ${reasonOf(err)}`);
    }
    const text = await response.text();
    const health = parsed(text);
    if (response.status === 200 && health?.status === 'ok') {
      out(`ok: ${url} (${health.database ?? 'database'})\n`);
      return EXIT.ok;
    }
    // One line, whatever answered: its body could be a whole page.
    const problem = health?.problem ?? (text.replace(/\s+/g, ' ').trim().slice(0, 200) || 'no body');
    throw new CommandError(`healthcheck: ${url} answered ${response.status}: ${problem}`);
  },
};

/** The address to ask: a wildcard host (every interface) is reached on loopback; an IPv6 one needs brackets. */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function parsed(text: string): { status?: string; database?: string; problem?: string } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as { status?: string; database?: string; problem?: string }) : undefined;
  } catch {
    return undefined;
  }
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, a timeout…). */
function reasonOf(err: unknown): string {
  const error = err as Error & { cause?: { code?: string; message?: string } };
  if (error.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return error.cause?.code ?? error.cause?.message ?? error.message;
}
