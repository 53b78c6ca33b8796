import type { ApiKey } from '../auth/identity.ts';
import { DEFAULT_SCOPES, parseScopes, SCOPES, type Scope } from '../auth/scopes.ts';
import { AppError } from '../core/errors.ts';
import { EXIT, JSON_FLAG, parseAge, UsageError, subcommandOf, table, type Command, type CommandInput } from './command.ts';
import { actorFor } from './link-flags.ts';
import { withServices } from './wiring.ts';

export const keys: Command = {
  summary: 'Create, list and revoke API keys (sent as "Authorization: Bearer KEY").',
  usage: 'keys create --name NAME [--user NAME] [--scope S,S] [--expires 90d] | list [--user NAME] | revoke NAME [--user NAME] [--json]',
  subcommands: {
    create: {
      usage: 'keys create --name NAME [--user NAME] [--scope S,S] [--expires 90d] [--json]',
      summary: 'make a key and print it, this once: it is stored only as a hash; it acts as its user (default: the first admin)',
    },
    list: {
      usage: 'keys list [--user NAME] [--json]',
      summary: "name, user, prefix, scopes, creation, expiry, last use (when, from where) and revocation; one user's with --user",
    },
    revoke: {
      usage: 'keys revoke NAME [--user NAME]',
      summary: "the key stops working at once; its name may be used again (a user's key: --user)",
    },
  },
  examples: ['kurz keys create --name ci --scope links:write --expires 90d', 'kurz keys revoke ci'],
  flags: {
    name: { type: 'string', placeholder: 'NAME', doc: 'keys create: what the key is for (1-64 letters, digits, spaces, . _ -)' },
    scope: {
      type: 'string',
      placeholder: 'S,S',
      multiple: true,
      doc: `keys create: what the key may do, comma-separated: ${SCOPES.join(', ')} (default ${DEFAULT_SCOPES.join(',')})`,
    },
    expires: { type: 'string', placeholder: 'AGE', doc: 'keys create: the key stops working after this long (90d, 12h, …); default never' },
    user: { type: 'string', placeholder: 'NAME', doc: 'the user whose key it is (see kurz users list); default: the first admin' },
    json: JSON_FLAG,
  },
  positionals: [0, 2],
  run(input) {
    const sub = subcommandOf('keys', keys, input.positionals);
    const usage = keys.subcommands?.[sub]?.usage ?? '';
    const name = input.values['name'];
    if (sub === 'revoke' && input.positionals.length !== 2) throw new UsageError(`keys revoke needs the key's name; usage: kurz ${usage}`);
    if (sub !== 'revoke' && input.positionals.length > 1)
      throw new UsageError(`keys ${sub}: unexpected argument ${JSON.stringify(input.positionals[1])}; usage: kurz ${usage}`);
    if (sub === 'create' && typeof name !== 'string') throw new UsageError(`keys create needs --name NAME; usage: kurz ${usage}`);
    for (const flag of ['name', 'scope', 'expires'])
      if (sub !== 'create' && input.values[flag] !== undefined)
        throw new UsageError(`--${flag} is for "keys create"; usage: kurz ${usage}`);
    if (sub === 'create') return createKey(input, String(name));
    if (sub === 'list') return listKeys(input);
    return revokeKey(input, input.positionals[1] ?? '');
  },
};

/** The --scope flags (each a comma-separated list); throws UsageError naming an unknown scope or an empty item. */
function scopesOf(given: CommandInput['values'][string]): Scope[] {
  const items = Array.isArray(given) ? given : [];
  const empty = items.find((item) => item.split(',').some((name) => name.trim() === ''));
  if (empty !== undefined) throw new UsageError(`--scope must list scopes separated by commas, got ${JSON.stringify(empty)}`);
  try {
    return parseScopes(items);
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(`--scope: ${err.message}`);
    throw err;
  }
}

function createKey({ values, config, out }: CommandInput, name: string): Promise<number> {
  const scopes = scopesOf(values['scope']);
  const expires = values['expires'];
  const expiresIn = typeof expires === 'string' ? parseAge('expires', expires) : null;
  return withServices(config, async (services) => {
    const user = await actorFor(services, values['user']);
    const { key, secret } = await services.access.createKey(user.userId, name, { scopes, expiresIn }, await actorFor(services, undefined));
    out(
      values['json']
        ? JSON.stringify({
            name: key.name,
            key: secret,
            prefix: key.prefix,
            createdAt: key.createdAt.toISOString(),
            yourlsToken: services.access.yourlsToken(key),
          }) + '\n'
        : `${secret}\n`,
    );
    return EXIT.ok;
  });
}

function listKeys({ values, config, out }: CommandInput): Promise<number> {
  return withServices(
    config,
    async (services) => {
      const all = await services.access.listKeys(
        values['user'] === undefined ? undefined : (await actorFor(services, values['user'])).userId,
      );
      const names = new Map((await services.users.listUsers(await actorFor(services, undefined))).map((u) => [u.id, u.name]));
      if (values['json']) out(JSON.stringify(all.map((key) => ({ ...keyJson(key), user: names.get(key.userId) ?? null }))) + '\n');
      else
        out(
          table(
            ['NAME', 'USER', 'PREFIX', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'FROM', 'REVOKED'],
            all.map((key) => {
              const [first, ...rest] = keyRow(key);
              return [first!, names.get(key.userId) ?? '', ...rest];
            }),
          ),
        );
      return EXIT.ok;
    },
    { existing: true },
  );
}

function revokeKey({ values, config, out }: CommandInput, name: string): Promise<number> {
  return withServices(
    config,
    async (services) => {
      await services.access.revokeKey((await actorFor(services, values['user'])).userId, name, await actorFor(services, undefined));
      out(values['json'] ? JSON.stringify({ name, revoked: true }) + '\n' : `revoked the API key "${name}"\n`);
      return EXIT.ok;
    },
    { existing: true },
  );
}

/** A key as listed: never the key itself, which is not stored. */
function keyJson(key: ApiKey) {
  return {
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    lastUsedFrom: key.lastUsedFrom,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

function keyRow(key: ApiKey): string[] {
  const minute = (at: Date) => at.toISOString().slice(0, 16).replace('T', ' ');
  return [
    key.name,
    `${key.prefix}…`,
    key.scopes.join(','),
    minute(key.createdAt),
    key.expiresAt ? minute(key.expiresAt) : 'never',
    key.lastUsedAt ? minute(key.lastUsedAt) : 'never',
    key.lastUsedFrom ?? '-',
    key.revokedAt ? minute(key.revokedAt) : '-',
  ];
}
