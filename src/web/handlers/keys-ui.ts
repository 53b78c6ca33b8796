import type { Context } from 'koa';
import type { ApiKey } from '../../auth/identity.ts';
import { DEFAULT_SCOPES, SCOPE_DOCS, SCOPES, type Scope } from '../../auth/scopes.ts';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { send, sendSeeOther } from '../../http/respond.ts';
import { actorOf, readCookie, readForm, writeCookie } from '../session.ts';
import { showPage } from './pages.ts';
import { formError, formFailure, textOf, type FormError } from '../forms.ts';
import { formatTime } from '../presenters.ts';
import { bookmarklet, curlLine, KEY_PLACEHOLDER, sharexFileName, sharexUploader } from '../one-click.ts';

/** The lifetimes the form offers, by the value of its `expires` field. */
const LIFETIMES: ReadonlyArray<{ value: string; label: string; ms: number | null }> = [
  { value: 'never', label: 'Never', ms: null },
  { value: '7d', label: 'In 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'In 30 days', ms: 30 * 86_400_000 },
  { value: '90d', label: 'In 90 days', ms: 90 * 86_400_000 },
  { value: '365d', label: 'In a year', ms: 365 * 86_400_000 },
];

/** The checkbox of each scope in the form. */
const scopeField = (scope: Scope) => `scope:${scope}`;

/** What the create form was sent with (or starts with: the default scopes, no expiry). */
interface KeyForm {
  name: string;
  scopes: readonly Scope[];
  expires: string;
}
const NEW_KEY: KeyForm = { name: '', scopes: DEFAULT_SCOPES, expires: 'never' };

/** How long the page after a creation may take to show the new key. */
const NEW_KEY_SHOWN_FOR = 60_000;

/** A key just made, as the page after its creation shows it: the key, and its YOURLS signature token (web/yourls-auth.ts). */
interface CreatedKey {
  name: string;
  secret: string;
  token: string;
}

/** The key a creation's cookie holds (base64url JSON, signed by kurz, so only kurz wrote it); null for anything else. */
function createdKey(value: string): CreatedKey | null {
  try {
    const { name, secret, token } = JSON.parse(Buffer.from(value, 'base64url').toString()) as Record<string, unknown>;
    return typeof name === 'string' && typeof secret === 'string' && typeof token === 'string' ? { name, secret, token } : null;
  } catch {
    return null;
  }
}

/** A key as the list shows it (never the key itself). */
function keyRow(key: ApiKey, now: number) {
  return {
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes.join(' '),
    created: formatTime(key.createdAt),
    expires: key.expiresAt ? formatTime(key.expiresAt) : null,
    expired: key.expiresAt !== null && key.expiresAt.getTime() <= now,
    lastUsed: key.lastUsedAt ? formatTime(key.lastUsedAt) : null,
    lastUsedFrom: key.lastUsedFrom,
    revoked: key.revokedAt ? formatTime(key.revokedAt) : null,
    revokeHref: `/keys/revoke?${new URLSearchParams({ name: key.name })}`,
  };
}

/** /keys: the API keys; a new one is shown once, on the page that answers its creation. */
export function keysUiHandlers(web: WebServices) {
  async function showKeys(ctx: Context, status: number, form: KeyForm, error: FormError | null, created: CreatedKey | null) {
    const keys = await web.access.listKeys(actorOf(ctx).userId);
    const revoked = typeof ctx.query['revoked'] === 'string' ? ctx.query['revoked'] : null;
    const now = web.now();
    const scopes = SCOPES.map((scope) => ({
      scope,
      field: scopeField(scope),
      doc: SCOPE_DOCS[scope],
      checked: form.scopes.includes(scope),
    }));
    const lifetimes = LIFETIMES.map(({ value, label }) => ({ value, label }));
    const rows = keys.map((key) => keyRow(key, now));
    showPage(ctx, web, status, 'keys', {
      title: 'API keys',
      section: 'keys',
      // Revoked keys are folded away below the ones that still work (or have expired).
      keys: rows.filter((key) => key.revoked === null),
      revokedKeys: rows.filter((key) => key.revoked !== null),
      name: form.name,
      scopes,
      lifetimes,
      expires: form.expires,
      error,
      created: created && {
        ...created,
        curl: curlLine(web, created.secret),
        // The uploader with the key in it can be had only now: a data: URL, so the key goes nowhere else.
        sharex: `data:application/octet-stream;base64,${Buffer.from(sharexUploader(web, created.secret)).toString('base64')}`,
      },
      revoked,
      yourlsApi: `${web.config.publicUrl}/yourls-api.php`,
      bookmarklet: bookmarklet(web, actorOf(ctx).userId),
      curl: curlLine(web, KEY_PLACEHOLDER),
      sharexFile: sharexFileName(web),
    });
  }

  return {
    /** The keys; a key just made (the creation's cookie) is shown this once, then the cookie is gone. */
    async listKeys(ctx: Context): Promise<void> {
      const made = readCookie(ctx, web, 'newKey');
      if (made !== undefined) writeCookie(ctx, web, 'newKey', null);
      await showKeys(ctx, 200, NEW_KEY, null, made === undefined ? null : createdKey(made));
    },

    /** Makes a key with the ticked scopes (none ticked: the default ones) and the lifetime chosen. */
    async createKey(ctx: Context): Promise<void> {
      const body = await readForm(ctx, web);
      const form: KeyForm = {
        name: textOf(body, 'name'),
        scopes: SCOPES.filter((scope) => body[scopeField(scope)] === 'true'),
        expires: textOf(body, 'expires') || 'never',
      };
      try {
        const lifetime = LIFETIMES.find((l) => l.value === form.expires);
        if (!lifetime) throw new AppError('invalid', `expires must be one of ${LIFETIMES.map((l) => l.value).join(', ')}`, 'expires');
        const { key, secret } = await web.access.createKey(
          actorOf(ctx).userId,
          form.name,
          { scopes: form.scopes, expiresIn: lifetime.ms },
          actorOf(ctx),
        );
        // Shown by the page this leads to, so that a reload there sends no form again (and makes no second key).
        const made = Buffer.from(JSON.stringify({ name: key.name, secret, token: web.access.yourlsToken(key) })).toString('base64url');
        writeCookie(ctx, web, 'newKey', made, NEW_KEY_SHOWN_FOR, 'strict');
        sendSeeOther(ctx.res, '/keys#new-key');
      } catch (err) {
        const error = formFailure(err);
        await showKeys(ctx, STATUS[error.code], form, formError(error, ['name', 'expires']), null);
      }
    },

    /** The ShareX custom uploader, with a placeholder where the key goes (kurz cannot show a key again). */
    downloadUploader(ctx: Context): void {
      const headers = {
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="${sharexFileName(web)}"`,
        'X-Content-Type-Options': 'nosniff',
      };
      send(ctx.res, 200, headers, sharexUploader(web, KEY_PLACEHOLDER));
    },

    /** The page that asks before revoking the live key `?name=`. */
    async confirmRevoke(ctx: Context): Promise<void> {
      const name = typeof ctx.query['name'] === 'string' ? ctx.query['name'] : '';
      const key = (await web.access.listKeys(actorOf(ctx).userId)).find((k) => k.name === name && !k.revokedAt);
      if (!key) throw new AppError('not_found', `no live API key named ${JSON.stringify(name)}`);
      showPage(ctx, web, 200, 'key-revoke', { title: `Revoke ${key.name}?`, section: 'keys', key: keyRow(key, web.now()) });
    },

    async revokeKey(ctx: Context): Promise<void> {
      const name = textOf(await readForm(ctx, web), 'name');
      await web.access.revokeKey(actorOf(ctx).userId, name, actorOf(ctx));
      sendSeeOther(ctx.res, `/keys?${new URLSearchParams({ revoked: name })}`);
    },
  };
}
