import { linkJson, type LinkJson } from '../links/link-json.ts';
import { EXIT, JSON_FLAG, UsageError, refuseTogether, type Command } from './command.ts';
import { actorFor, AS_FLAG, DOMAIN_FLAG, OPTION_FLAGS, optionFields } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const edit: Command = {
  summary: 'Change a link: its target or options. Only the flags given change; the redirect follows at once.',
  usage:
    'edit CODE [--domain HOST] [--move-to HOST] [--owner USER] [--url URL] [--title T] [--tags A,B] [--no-expires] [--disable] [other options below] [--json] [--as USER]',
  examples: ['kurz edit docs --url https://example.com/new/path --expires 2027-01-01'],
  flags: {
    as: AS_FLAG,
    domain: DOMAIN_FLAG,
    'move-to': { type: 'string', placeholder: 'HOST', doc: 'move the link to this domain, code kept (refused if the code is taken there)' },
    owner: { type: 'string', placeholder: 'USER', doc: 'hand the link to this user (see kurz users list); an admin’s to do' },
    url: { type: 'string', placeholder: 'URL', doc: 'a new target' },
    ...OPTION_FLAGS,
    'no-starts-at': { type: 'boolean', doc: 'remove the start time: the link redirects at once' },
    'no-expires': { type: 'boolean', doc: 'remove the expiry' },
    'no-crawlable': { type: 'boolean', doc: 'robots.txt disallows the short URL again, as every other path' },
    'no-max-visits': { type: 'boolean', doc: 'remove the visit limit' },
    'no-password': { type: 'boolean', doc: 'remove the password' },
    'no-split': { type: 'boolean', doc: 'remove the A/B split: redirect to the target again' },
    'default-redirect-status': { type: 'boolean', doc: "use the instance's redirect status again" },
    'default-forward-query': { type: 'boolean', doc: "follow the instance's forwardQuery setting again" },
    'no-preview': { type: 'boolean', doc: 'remove the social preview (the --preview-* flags change only the parts they name)' },
    enable: { type: 'boolean', doc: 'let the link redirect again' },
    disable: { type: 'boolean', doc: 'the link answers 410 until enabled' },
    json: JSON_FLAG,
  },
  positionals: [1, 1],
  async run({ values, positionals, config, out }) {
    refuseTogether(values, 'starts-at', 'no-starts-at');
    refuseTogether(values, 'expires', 'no-expires');
    refuseTogether(values, 'crawlable', 'no-crawlable');
    refuseTogether(values, 'max-visits', 'no-max-visits');
    refuseTogether(values, 'redirect-status', 'default-redirect-status');
    refuseTogether(values, 'forward-query', 'default-forward-query');
    refuseTogether(values, 'no-forward-query', 'default-forward-query');
    refuseTogether(values, 'enable', 'disable');
    refuseTogether(values, 'split', 'no-split');
    for (const part of ['preview-title', 'preview-description', 'preview-image']) refuseTogether(values, part, 'no-preview');
    const fields = await optionFields(values);
    const cleared: Array<[flag: string, field: string]> = [
      ['no-starts-at', 'startsAt'],
      ['no-expires', 'expiresAt'],
      ['no-max-visits', 'maxVisits'],
      ['no-password', 'password'],
      ['default-redirect-status', 'redirectStatus'],
      ['default-forward-query', 'forwardQuery'],
      ['no-split', 'split'],
    ];
    for (const [flag, field] of cleared) if (values[flag]) fields[field] = null;
    if (values['no-preview']) fields['preview'] = null;
    if (values['enable'] || values['disable']) fields['enabled'] = values['enable'] === true;
    if (values['url'] !== undefined) fields['url'] = values['url'];
    if (values['move-to'] !== undefined) fields['domain'] = values['move-to'];
    if (values['owner'] !== undefined) fields['owner'] = values['owner'];
    if (Object.keys(fields).length === 0) throw new UsageError(`edit: give at least one change; see "kurz edit --help"`);
    return withServices(
      config,
      async (services) => {
        const actor = await actorFor(services, values['as']);
        const code = positionals[0] ?? '';
        const domain = services.registry.idOf(values['domain']);
        // The preview flags change only the parts they name: the others are kept.
        if (fields['preview'] !== undefined && fields['preview'] !== null) {
          const current = (await services.links.existingLink(actor, code, domain)).preview;
          fields['preview'] = { ...current, ...(fields['preview'] as object) };
        }
        const shown = linkJson(await services.links.editLink(actor, code, fields, domain), services);
        out(values['json'] ? JSON.stringify(shown) + '\n' : describe(shown, services.registry.several()));
        return EXIT.ok;
      },
      { existing: true },
    );
  },
};

/** The link's target and options in a few lines; its domain too when there are several. */
function describe(link: LinkJson, domains: boolean): string {
  const visits = link.maxVisits === null ? 'no limit' : `at most ${link.maxVisits} (${link.visitsLeft} left)`;
  const rows: Array<[string, string | null]> = [
    ['Short URL', link.shortUrl],
    ['Domain', domains ? link.domain : null],
    ['Target', link.split ? `${link.url} (the fallback of its split)` : link.url],
    ['Split', link.split && link.split.map((v) => `${v.url} ×${v.weight}${v.paused ? ' (paused)' : ''}`).join(', ')],
    ['Title', link.title],
    ['Note', link.note],
    ['Tags', link.tags.length > 0 ? link.tags.join(', ') : null],
    ['Starts', link.startsAt],
    ['Expires', link.expiresAt ?? 'never'],
    ['Visits', visits],
    ['Password', link.passwordProtected ? 'yes' : 'no'],
    ['Preview', link.preview && [link.preview.title, link.preview.description, link.preview.image].filter((p) => p !== null).join(' · ')],
    ['Redirect', `${link.redirectStatus}${link.forwardQuery ? ', query string forwarded' : ''}`],
    ['Enabled', link.enabled ? 'yes' : 'no: answers 410'],
    ['Crawlable', link.crawlable ? 'yes: robots.txt allows it while the link is live' : null],
    ['Blocked', link.blocked && `answers 410: "${link.blocked.rule}" is listed in ${link.blocked.list}`],
  ];
  return (
    rows
      .filter((row): row is [string, string] => row[1] !== null)
      .map(([k, v]) => `${k.padEnd(10)} ${v.replace(/\n/g, ' ')}`)
      .join('\n') + '\n'
  );
}
