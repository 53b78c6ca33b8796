import { OPTIONS, envName, fileEnvName, flagName } from '../config.ts';
import type { Command } from './command.ts';

type Table = Array<[name: string, command: Command]>;

/** Text for roff: backslashes and dashes escaped, other characters than ASCII named, no line starting as a request would. */
function roff(text: string): string {
  return text
    .replaceAll('\\', '\\e')
    .replaceAll('-', '\\-')
    .replace(/[^ -~\n\t]/gu, (c) => `\\[u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}]`)
    .replace(/^([.'])/gm, '\\&$1');
}

const bold = (text: string) => `\\fB${roff(text)}\\fR`;

/**
 * kurz(8), the man page the Debian package installs: the commands with their flags and examples from the
 * command table, and every setting from the option table, so that it says what `kurz help` says.
 */
export function manPage(table: Table, version: string): string {
  const lines = [
    `.TH KURZ 8 "" "kurz ${roff(version)}" "System Administration"`,
    // Left-aligned: the flags' JSON examples are words too long to justify a line around.
    '.ad l',
    '.SH NAME',
    'kurz \\- self\\-hosted URL shortener in one executable',
    '.SH SYNOPSIS',
    '.B kurz',
    '[\\fICOMMAND\\fR] [\\fIFLAGS\\fR]',
    '.SH DESCRIPTION',
    'kurz serves short links, their statistics, a web interface and a JSON API from one SQLite file (or a',
    'PostgreSQL database), and is its own command line. Without a command it serves. Installed from its',
    'Debian package, it runs as the',
    '.B kurz.service',
    'systemd unit, as the system user',
    `${bold('kurz')}, with its database in ${bold('/var/lib/kurz')} and its settings in ${bold('/etc/kurz/kurz.env')}.`,
    '.PP',
    'On its first start kurz writes a generated admin password to',
    `${bold('kurz-admin-password')} beside the database and names that file in its log (${bold('journalctl -u kurz')}).`,
    '.SH COMMANDS',
    'Each command takes',
    `${bold('--help')} (as does ${bold('kurz help')} ${'\\fICOMMAND\\fR'}) and the configuration flags below.`,
  ];
  for (const [name, command] of table) {
    lines.push('.SS ' + `"${roff(`kurz ${command.usage}`).replaceAll('"', '""')}"`, roff(command.summary));
    for (const sub of Object.values(command.subcommands ?? {})) lines.push('.TP', bold(`kurz ${sub.usage}`), roff(sub.summary));
    for (const [flag, f] of Object.entries(command.flags)) {
      const value = f.type === 'string' ? ` \\fI${roff(f.placeholder ?? 'VALUE')}\\fR` : '';
      lines.push('.TP', `${bold(`--${flag}`)}${value}`, roff(f.doc + (f.multiple ? ' (repeatable)' : '')));
    }
    lines.push('.PP', `Example${command.examples.length > 1 ? 's' : ''} (${roff(name)}):`, '.RS', '.nf');
    lines.push(...command.examples.map(roff), '.fi', '.RE');
  }
  lines.push(
    '.SH CONFIGURATION',
    'Each setting has a default, may be a key of the JSON file that',
    `${bold('--config')} names, an environment variable (the unit reads ${bold('/etc/kurz/kurz.env')}) or a flag;`,
    'each later one wins. An invalid value stops kurz with a message that names the key.',
    'A secret is never taken from a flag: give it in the environment, in the file, or in a file that its',
    `${bold('_FILE')} variable names.`,
  );
  for (const option of OPTIONS) {
    const names = [`--${flagName(option.name)}`, envName(option.name), ...(option.secret ? [fileEnvName(option.name)] : [])];
    const shown = option.default === '' ? 'empty' : String(option.default);
    lines.push('.TP', names.map(bold).join(', '), `${roff(option.doc)} (default: ${roff(shown)})`);
  }
  lines.push(
    '.SH EXIT STATUS',
    '0 success; 1 a failure at run time (not found, conflict, an unreadable file); 2 bad usage or',
    `configuration; 3 ${bold('kurz check')} found problems in the database.`,
    '.SH FILES',
    '.TP',
    bold('/etc/kurz/kurz.env'),
    'the settings of the systemd unit (a conffile, mode 0600: it may hold secrets)',
    '.TP',
    bold('/var/lib/kurz/kurz.db'),
    'the database: every link, visit, user and the code key; back it up with',
    `${bold('kurz backup')} (scheduled copies go to ${bold('/var/lib/kurz/backups')})`,
    '.TP',
    bold('/var/cache/kurz'),
    'the unpacked SQLite addon; safe to delete',
    '.SH SEE ALSO',
    '.BR systemctl (1),',
    '.BR journalctl (1)',
  );
  return lines.join('\n') + '\n';
}
