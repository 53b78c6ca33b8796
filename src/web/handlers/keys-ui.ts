import type { Context } from 'koa';
import type { ApiKey } from '../../auth/identity.ts';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../errors.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { readForm } from '../session.ts';
import { formatTime, formError, formFailure, showPage, textOf, type FormError } from './pages.ts';

/** A key as the list shows it (never the key itself). */
function keyRow(key: ApiKey) {
  return {
    name: key.name,
    prefix: key.prefix,
    created: formatTime(key.createdAt),
    lastUsed: key.lastUsedAt ? formatTime(key.lastUsedAt) : null,
    revoked: key.revokedAt ? formatTime(key.revokedAt) : null,
    revokeHref: `/keys/revoke?${new URLSearchParams({ name: key.name })}`,
  };
}

/** /keys: the API keys; a new one is shown once, on the page that answers its creation. */
export function keysUiHandlers(web: WebServices) {
  async function showKeys(
    ctx: Context,
    status: number,
    name: string,
    error: FormError | null,
    created: { name: string; secret: string } | null,
  ) {
    const keys = await web.access.listKeys();
    const revoked = typeof ctx.query['revoked'] === 'string' ? ctx.query['revoked'] : null;
    // The page that shows a new key must not be kept by the browser or a proxy.
    if (created) ctx.res.setHeader('Cache-Control', 'no-store');
    showPage(ctx, web, status, 'keys', { title: 'API keys', section: 'keys', keys: keys.map(keyRow), name, error, created, revoked });
  }

  return {
    async listKeys(ctx: Context): Promise<void> {
      await showKeys(ctx, 200, '', null, null);
    },

    async createKey(ctx: Context): Promise<void> {
      const name = textOf(await readForm(ctx, web), 'name');
      try {
        const { key, secret } = await web.access.createKey(name);
        await showKeys(ctx, 200, '', null, { name: key.name, secret });
      } catch (err) {
        const error = formFailure(err);
        await showKeys(ctx, STATUS[error.code], name, formError(error, ['name']), null);
      }
    },

    /** The page that asks before revoking the live key `?name=`. */
    async confirmRevoke(ctx: Context): Promise<void> {
      const name = typeof ctx.query['name'] === 'string' ? ctx.query['name'] : '';
      const key = (await web.access.listKeys()).find((k) => k.name === name && !k.revokedAt);
      if (!key) throw new AppError('not_found', `no live API key named ${JSON.stringify(name)}`);
      showPage(ctx, web, 200, 'key-revoke', { title: `Revoke ${key.name}?`, section: 'keys', key: keyRow(key) });
    },

    async revokeKey(ctx: Context): Promise<void> {
      const name = textOf(await readForm(ctx, web), 'name');
      await web.access.revokeKey(name);
      sendSeeOther(ctx.res, `/keys?${new URLSearchParams({ revoked: name })}`);
    },
  };
}
