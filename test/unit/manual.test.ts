import { execFile } from 'node:child_process';
import test from 'ava';
import { OPTIONS, envName, flagName } from '../../src/config.ts';
import { manPage } from '../../src/cli/manual.ts';
import { listedCommands } from '../../src/cli/run.ts';

/** groff's reading of a man page: its warnings (all of them, -ww) on standard error, nothing when it is clean. */
function groffWarnings(page: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('groff', ['-man', '-Tutf8', '-ww', '-z'], (err, _stdout, stderr) => (err ? reject(err) : resolve(stderr)));
    child.stdin?.end(page);
  });
}

test('the man page names every command with its usage, flags and examples, and every setting with its variable', async (t) => {
  const commands = await listedCommands();
  const page = manPage(commands, '9.9.9');
  t.regex(page, /^\.TH KURZ 8 "" "kurz 9\.9\.9" "System Administration"\n/);
  // Read back as text: roff's escapes for dashes, backslashes and other characters than ASCII undone.
  const text = page
    .replaceAll('\\-', '-')
    .replace(/\\\[u([0-9A-F]{4,})\]/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replaceAll('\\e', '\\');
  for (const [name, command] of commands) {
    t.true(text.includes(`.SS "kurz ${command.usage.replaceAll('"', '""')}"`), name);
    for (const flag of Object.keys(command.flags)) t.true(text.includes(`\\fB--${flag}\\fR`), `${name} --${flag}`);
    for (const example of command.examples)
      t.true(
        text.includes(`\n${example.replace(/[^ -~]/gu, (c) => `\\[u${c.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0')}]`)}\n`),
        example,
      );
  }
  for (const option of OPTIONS) t.true(text.includes(`\\fB--${flagName(option.name)}\\fR, \\fB${envName(option.name)}\\fR`), option.name);
});

test('groff reads the man page without a warning', async (t) => {
  t.is(await groffWarnings(manPage(await listedCommands(), '0.0.0')), '');
  // The check can fail: a line that starts with a dot is a request, and an unknown one is warned of.
  t.regex(await groffWarnings('.TH X 8\n.SH NAME\n.frobnicate\n'), /frobnicate/);
});
