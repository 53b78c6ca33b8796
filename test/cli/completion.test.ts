import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { runCli, tempDir } from '../helpers.ts';

const kurz = (...args: string[]) => runCli(args, {});

/** The commands `kurz help` lists, in its order. */
async function listedNames(): Promise<string[]> {
  const help = await kurz('help');
  return [...help.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1] ?? '');
}

/** Runs a shell program; resolves with its exit code and output (never rejects). */
function shell(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 20_000, env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent' } }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('kurz help COMMAND prints every command’s usage, flags and an example of that command', async (t) => {
  const names = await listedNames();
  t.true(names.includes('completion'));
  t.true(names.length >= 22);
  for (const name of names) {
    const result = await kurz('help', name);
    t.is(result.code, 0, name);
    t.true(result.stdout.startsWith(`Usage: kurz ${name}`), name);
    const examples = /\nExamples?:\n((?: {2}.+\n)+)/.exec(result.stdout)?.[1];
    t.truthy(examples, `${name} has an example`);
    for (const line of (examples ?? '').trimEnd().split('\n')) t.true(line.includes(`kurz ${name}`), `${name}: ${line}`);
  }
});

test('kurz help with an unknown command exits 2 and names the commands', async (t) => {
  const result = await kurz('help', 'frobnicate');
  t.is(result.code, 2);
  t.is(result.stdout, '');
  t.regex(result.stderr, /^kurz: help: unknown command "frobnicate"; the commands are serve, create, .*, completion, healthcheck\n/);
});

test('kurz help with more than one command exits 2', async (t) => {
  const result = await kurz('help', 'create', 'list');
  t.is(result.code, 2);
  t.is(result.stdout, '');
  t.regex(result.stderr, /^kurz: help takes one command, got 2: create list\n/);
});

test('kurz completion with no shell or an unknown one exits 2', async (t) => {
  t.like(await kurz('completion'), { code: 2, stdout: '' });
  const result = await kurz('completion', 'powershell');
  t.is(result.code, 2);
  t.regex(result.stderr, /completion: unknown subcommand "powershell"; try "completion bash", "completion zsh", "completion fish"/);
  t.like(await kurz('completion', 'bash', 'zsh'), { code: 2, stdout: '' });
});

/** Writes `kurz completion SHELL` to a file in the test's folder. */
async function scriptFile(t: Parameters<typeof tempDir>[0], name: 'bash' | 'zsh' | 'fish'): Promise<string> {
  const result = await kurz('completion', name);
  t.is(result.code, 0);
  const file = join(tempDir(t), `kurz.${name}`);
  writeFileSync(file, result.stdout);
  return file;
}

for (const name of ['bash', 'zsh', 'fish'] as const) {
  test(`${name} accepts kurz completion ${name} (${name} -n)`, async (t) => {
    const file = await scriptFile(t, name);
    t.like(await shell(name, ['-n', file]), { code: 0, stderr: '' });
  });
}

test('bash: kurz is completed by _kurz; it completes commands, subcommands, flags after configuration flags, and help topics', async (t) => {
  const file = await scriptFile(t, 'bash');
  // A real bash sources the script and calls the function as readline would, with COMP_WORDS and COMP_CWORD.
  const program = `source ${file}
complete -p kurz
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kurz; echo "[\${COMPREPLY[*]}]"; }
ask kurz cre
ask kurz --db /tmp/x.db create --al
ask kurz keys ''
ask kurz keys create --na
ask kurz help ver
ask kurz completion ''
ask kurz --po`;
  const result = await shell('bash', ['-c', program]);
  t.is(result.stderr, '');
  t.deepEqual(result.stdout.split('\n'), [
    'complete -o filenames -F _kurz kurz',
    '[create]',
    '[--alias --allow-domains]',
    '[create list revoke]',
    '[--name]',
    '[version]',
    '[bash zsh fish]',
    '[--port]',
    '',
  ]);
});

test('fish completes commands, subcommands and flags with their descriptions (fish sorts them)', async (t) => {
  const file = await scriptFile(t, 'fish');
  const result = await shell('fish', [
    '-c',
    `source ${file}; complete -C 'kurz cre'; complete -C 'kurz list --sea'; complete -C 'kurz completion '`,
  ]);
  t.is(result.stderr, '');
  t.deepEqual(result.stdout.split('\n'), [
    'create\tShorten URL and print the short link. The same bare URL again prints the existing link (dedupe).',
    '--search\tonly links whose code or URL contains TEXT',
    'bash\tfor ~/.bashrc (source <(kurz completion bash)) or /etc/bash_completion.d/kurz',
    'fish\tsave as ~/.config/fish/completions/kurz.fish',
    'zsh\tsave as _kurz in a folder of $fpath, or source it after compinit',
    '',
  ]);
});

/**
 * zsh completes only inside its line editor: a zsh on a pseudo-terminal (zpty) loads compinit and the script,
 * is sent a partial line and a Tab, and its screen is read until the completion shows (or the timeout ends it).
 */
const ZPTY = `zmodload zsh/zpty
zpty z 'TERM=dumb PS1="> " zsh -f -i'
zpty -w z "autoload -Uz compinit && compinit -u -D && source $1 && print READY"
zpty -r z out '*READY*READY*'
zpty -w -n z "$2"$'\\t'
zpty -r z out "*$3*" && print -r -- found
zpty -d z`;

for (const [line, shown] of [
  ['kurz cre', 'kurz create'],
  ['kurz --db x.db create --ali', '--alias'],
  ['kurz keys ', 'revoke'],
] as const) {
  test(`zsh completes "${line}" with ${shown}`, async (t) => {
    const file = await scriptFile(t, 'zsh');
    const result = await shell('zsh', ['-f', '-c', ZPTY, 'zpty-test', file, line, shown]);
    t.is(result.stdout.trim().split('\n').at(-1), 'found', result.stdout + result.stderr);
  });
}
