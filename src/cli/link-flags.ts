import { FIRST_ADMIN, type Actor } from '../auth/actor.ts';
import type { Services } from '../context.ts';
import { refuseTogether, UsageError, type CommandInput } from './command.ts';
import { askSecret, readSecretLine } from './secret-input.ts';

type Values = CommandInput['values'];

/** The domain a command's CODE is on, or a new link goes to: a host of `kurz domains list`. */
export const DOMAIN_FLAG = {
  type: 'string',
  placeholder: 'HOST',
  doc: "the link's domain (see kurz domains list); default: the default domain, the publicUrl's host",
} as const;

/** Whom a command acts for: `--as NAME`; without it, the first admin. */
export const AS_FLAG = {
  type: 'string',
  placeholder: 'USER',
  doc: 'act as this user (see kurz users list): see and change only what they may; default: the first admin',
} as const;

/** The actor `--as` names (the first admin without it). Throws UsageError for a user that does not exist or is disabled. */
export async function actorFor(services: Pick<Services, 'access'>, name: unknown): Promise<Actor> {
  const user =
    name === undefined
      ? await services.access.userById(FIRST_ADMIN)
      : typeof name === 'string'
        ? await services.access.userByName(name)
        : undefined;
  if (!user) throw new UsageError(`--as must name one of kurz's users (kurz users list), got ${JSON.stringify(name)}`);
  if (user.state !== 'active') throw new UsageError(`${user.name} is disabled; enable them first (kurz users enable ${user.name})`);
  return { userId: user.id, name: user.name, role: user.role, via: { kind: 'cli' } };
}

/** The option flags `create` and `edit` share; each sets the API field of the same meaning (links/link-options.ts). */
export const OPTION_FLAGS = {
  title: { type: 'string', placeholder: 'TEXT', doc: 'a title to tell the link by (empty: none)' },
  note: { type: 'string', placeholder: 'TEXT', doc: 'a private note (empty: none)' },
  tags: { type: 'string', placeholder: 'A,B', doc: 'tags, comma-separated (empty: none)', multiple: true },
  'starts-at': {
    type: 'string',
    placeholder: 'TIME',
    doc: 'until this RFC 3339 time the code answers 404 as if it did not exist, e.g. 2026-12-01T09:00:00Z',
  },
  expires: { type: 'string', placeholder: 'TIME', doc: 'from this RFC 3339 time on the link answers 410, e.g. 2026-12-31T23:59:59Z' },
  'max-visits': { type: 'string', placeholder: 'N', doc: 'visits allowed in all; then the link answers 410' },
  password: {
    type: 'string',
    placeholder: 'PASSWORD',
    doc: 'visitors must give this password; shell history and `ps` see it: prefer --password-stdin',
  },
  'password-stdin': { type: 'boolean', doc: 'read the password from the first line of standard input (on a terminal: ask)' },
  'redirect-status': { type: 'string', placeholder: 'N', doc: "301, 302, 307 or 308 instead of the instance's setting" },
  'forward-query': { type: 'boolean', doc: "append the visitor's query string to the target" },
  'no-forward-query': { type: 'boolean', doc: "never append the visitor's query string" },
  crawlable: { type: 'boolean', doc: 'robots.txt allows search engines to follow the short URL' },
  split: {
    type: 'string',
    placeholder: 'URL=W,URL=W',
    doc: 'an A/B split: redirect to these variants by weight instead of the target (a trailing ! pauses one: URL=1!)',
  },
  'preview-title': { type: 'string', placeholder: 'TEXT', doc: "the social preview's title (og:title) that chat apps show" },
  'preview-description': { type: 'string', placeholder: 'TEXT', doc: "the social preview's description (og:description)" },
  'preview-image': { type: 'string', placeholder: 'URL', doc: "the social preview's image (og:image), an absolute http(s) URL" },
} as const;

/** The flags of the social preview's parts, by the part they set. */
const PREVIEW_FLAGS = { title: 'preview-title', description: 'preview-description', image: 'preview-image' } as const;

/**
 * The API fields the option flags in `values` give, as links/link-options.ts takes them (strings of digits
 * become numbers; anything else is passed on for it to refuse with its own message). Reads standard input
 * for --password-stdin. Throws UsageError for contradicting flags.
 */
export async function optionFields(values: Values): Promise<Record<string, unknown>> {
  refuseTogether(values, 'password', 'password-stdin', 'no-password');
  refuseTogether(values, 'forward-query', 'no-forward-query');
  const fields: Record<string, unknown> = {
    title: values['title'],
    note: values['note'],
    tags: Array.isArray(values['tags']) ? values['tags'].join(',') : undefined,
    startsAt: values['starts-at'],
    expiresAt: values['expires'],
    maxVisits: whole(values['max-visits']),
    password: values['password-stdin'] ? await readPassword() : values['password'],
    redirectStatus: whole(values['redirect-status']),
    forwardQuery: values['forward-query'] ? true : values['no-forward-query'] ? false : undefined,
    crawlable: values['crawlable'] ? true : values['no-crawlable'] ? false : undefined,
    split: typeof values['split'] === 'string' ? splitVariants(values['split']) : undefined,
    preview: previewParts(values),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * `--split`'s variants, `URL=WEIGHT` separated by commas (the weight after the last `=`; a trailing `!`
 * pauses the variant), as the API's `split`: what they say is checked by the use case (rules/rule.ts's
 * parseSplit, naming `split[i]…`), so an entry without a weight is passed on for it to refuse.
 */
export function splitVariants(text: string): Array<{ url: string; weight: unknown; paused?: boolean }> {
  return text.split(',').map((entry) => {
    const at = entry.lastIndexOf('=');
    if (at === -1) return { url: entry.trim(), weight: undefined };
    let weight = entry.slice(at + 1).trim();
    const paused = weight.endsWith('!');
    if (paused) weight = weight.slice(0, -1);
    return { url: entry.slice(0, at).trim(), weight: whole(weight), ...(paused ? { paused } : {}) };
  });
}

/** The preview parts the flags give (an empty one clears its part), or undefined when no preview flag is given. */
function previewParts(values: Values): Record<string, unknown> | undefined {
  const given = Object.entries(PREVIEW_FLAGS).filter(([, flag]) => values[flag] !== undefined);
  return given.length === 0 ? undefined : Object.fromEntries(given.map(([part, flag]) => [part, values[flag]]));
}

/** On a terminal the password is asked for without echo; else it is standard input's first line. */
function readPassword(): Promise<string> {
  return process.stdin.isTTY ? askSecret("The link's password: ") : readSecretLine('password');
}

function whole(value: Values[string]): unknown {
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
}
