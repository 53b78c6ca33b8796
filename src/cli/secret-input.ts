import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CommandError } from './command.ts';

/**
 * The first line of standard input, without its line ending: how a script hands over a secret without putting
 * it in the command line (where `ps` and the shell history see it). Throws CommandError when none is given.
 */
export async function readSecretLine(what: string): Promise<string> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let first = '';
  try {
    for await (const line of lines) {
      first = line;
      break;
    }
  } finally {
    lines.close();
    process.stdin.destroy();
  }
  if (first === '') throw new CommandError(`no ${what} given: the first line of standard input was empty`);
  return first;
}

/** Asks for a secret on the terminal without showing what is typed; the prompt goes to stderr. Ctrl-C or Ctrl-D gives up. */
export async function askSecret(prompt: string): Promise<string> {
  // readline echoes what is typed to its output: a stream that drops everything hides it. The terminal's own
  // echo is off from here on (raw mode), so the prompt comes after.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const lines = createInterface({ input: process.stdin, output: muted, terminal: true });
  process.stderr.write(prompt);
  try {
    return await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      lines.once('SIGINT', () => lines.close());
      lines.once('close', () => reject(new CommandError('cancelled; nothing was changed')));
    });
  } finally {
    lines.close();
    process.stderr.write('\n');
  }
}
