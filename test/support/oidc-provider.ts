import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import Provider from 'oidc-provider';

/** The client kurz is registered as at the test provider. */
export const CLIENT_ID = 'kurz';
export const CLIENT_SECRET = 'test-client-secret-0123456789';
/** The group the admin claim names. */
export const ADMIN_GROUP = 'kurz-admins';

/** The provider's accounts: the login typed in its form is the account id. */
export const ACCOUNTS: Readonly<Record<string, { preferred_username: string; email: string; groups: string[] }>> = {
  alice: { preferred_username: 'alice', email: 'alice@example.com', groups: [ADMIN_GROUP, 'staff'] },
  bob: { preferred_username: 'bob', email: 'bob@example.com', groups: ['staff'] },
  // A user name kurz cannot take.
  carol: { preferred_username: 'carol smith', email: 'carol@example.com', groups: [ADMIN_GROUP] },
};

/** kurz's settings for signing on at `issuer` as this client. */
export function ssoSettings(issuer: string): Record<string, unknown> {
  return {
    oidcIssuer: issuer,
    oidcClientId: CLIENT_ID,
    oidcClientSecret: CLIENT_SECRET,
    oidcScopes: 'openid profile email groups',
    oidcAdminClaim: 'groups',
    oidcAdminValue: ADMIN_GROUP,
  };
}

/**
 * A real OpenID provider (oidc-provider, certified) on 127.0.0.1 on a free port, with its development
 * login form (any password), PKCE required, and kurz registered with `redirectUris`; the accounts' claims
 * in the ID token, or (`claimsInIdToken` false) only at the UserInfo endpoint. Stopped after the test.
 */
export async function startProvider(
  t: ExecutionContext,
  redirectUris: string[],
  { claimsInIdToken = true }: { claimsInIdToken?: boolean } = {},
): Promise<{ issuer: string; provider: Provider }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        post_logout_redirect_uris: redirectUris.map((uri) => new URL('/login', uri).href),
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    cookies: { keys: ['test cookie key'] },
    findAccount: (_ctx, id) => {
      const account = ACCOUNTS[id];
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
    // Every claim goes into the ID token, as Authentik and Keycloak do; or, as Authelia does by default,
    // only `sub` and the like, the rest at the UserInfo endpoint.
    conformIdTokenClaims: !claimsInIdToken,
  });
  server.on('request', provider.callback());
  return { issuer, provider };
}

/** A cookie jar keyed by name (paths ignored: the provider's few cookies do not clash). */
function remember(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    const [name, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

/**
 * Goes through the provider as a browser would, from kurz's authorization URL: its login form (as
 * `login`), then its consent form; returns the URL the provider sends the browser back to (kurz's
 * callback, with the code and state, or an error). With `cancel`, the user cancels at the login form
 * (the provider answers error=access_denied).
 */
export async function signInAt(authorizationUrl: string, login: string, { cancel = false } = {}): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  const origin = url.origin;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      redirect: 'manual',
    });
    remember(jar, res);
    init = {};
    const location = res.headers.get('location');
    if (location) {
      url = new URL(location, url);
      if (url.origin !== origin) return url;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 500)}`);
    const abort = /href="([^"]+\/abort)"/.exec(html)?.[1];
    if (cancel && abort) {
      url = new URL(abort.replace(/&amp;/g, '&'), url);
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`no form on the provider's page: ${html.slice(0, 500)}`);
    const fields: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any' } : { prompt };
    url = new URL(action.replace(/&amp;/g, '&'), url);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    };
  }
  throw new Error('the provider never sent the browser back');
}
