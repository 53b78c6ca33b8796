import type { ApiKey } from '../auth/identity.ts';
import { EXIT, JSON_FLAG, UsageError, subcommandOf, table, type Command, type CommandInput } from './command.ts';
import { withServices } from './wiring.ts';

export const keys: Command = {
  summary: 'Create, list and revoke API keys (sent as "Authorization: Bearer KEY").',
  usage: 'keys create --name NAME | list | revoke NAME [--json]',
  subcommands: {
    create: { usage: 'keys create --name NAME [--json]', summary: 'make a key and print it, this once: it is stored only as a hash' },
    list: { usage: 'keys list [--json]', summary: 'name, prefix, creation, last use and revocation of every key' },
    revoke: { usage: 'keys revoke NAME', summary: 'the key stops working at once; its name may be used again' },
  },
  flags: {
    name: { type: 'string', placeholder: 'NAME', doc: 'keys create: what the key is for (1-64 letters, digits, spaces, . _ -)' },
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
    if (sub !== 'create' && name !== undefined) throw new UsageError(`--name is for "keys create"; usage: kurz ${usage}`);
    if (sub === 'create') return createKey(input, String(name));
    if (sub === 'list') return listKeys(input);
    return revokeKey(input, input.positionals[1] ?? '');
  },
};

function createKey({ values, config, out }: CommandInput, name: string): Promise<number> {
  return withServices(config, async (services) => {
    const { key, secret } = await services.access.createKey(name);
    out(
      values['json']
        ? JSON.stringify({ name: key.name, key: secret, prefix: key.prefix, createdAt: key.createdAt.toISOString() }) + '\n'
        : `${secret}\n`,
    );
    return EXIT.ok;
  });
}

function listKeys({ values, config, out }: CommandInput): Promise<number> {
  return withServices(
    config,
    async (services) => {
      const all = await services.access.listKeys();
      if (values['json']) out(JSON.stringify(all.map(keyJson)) + '\n');
      else out(table(['NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'], all.map(keyRow)));
      return EXIT.ok;
    },
    { existing: true },
  );
}

function revokeKey({ values, config, out }: CommandInput, name: string): Promise<number> {
  return withServices(
    config,
    async (services) => {
      await services.access.revokeKey(name);
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
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

function keyRow(key: ApiKey): string[] {
  const minute = (at: Date) => at.toISOString().slice(0, 16).replace('T', ' ');
  return [
    key.name,
    `${key.prefix}…`,
    minute(key.createdAt),
    key.lastUsedAt ? minute(key.lastUsedAt) : 'never',
    key.revokedAt ? minute(key.revokedAt) : '-',
  ];
}
