import { BROWSER_ACCEPT, csrfOf, loginAs, type TestKurz } from '../helpers.ts';

// Members for the tests of several users: each with an API key and a logged-in session.

export const MEMBER_PASSWORD = 'a long enough password';

export interface Member {
  name: string;
  key: string;
  cookie: string;
  /** An API request with the member's key. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
  /** A page (or, with `form`, a form post with the session's CSRF token) with the member's session. */
  page(path: string, form?: Record<string, string>): Promise<Response>;
}

/** Adds a member through the API, sets their password with their one-time link, makes them a key and a session. */
export async function member(k: TestKurz, name: string): Promise<Member> {
  const added = await k.postJson('/api/v1/users', { name, email: `${name}@example.com` });
  const { link, role } = (await added.json()) as { link: string; role: string };
  if (added.status !== 201 || role !== 'member') throw new Error(`adding ${name}: ${added.status}`);
  const token = link.slice(link.lastIndexOf('/') + 1);
  await k.kurz.services.users.acceptInvitation(token, MEMBER_PASSWORD);
  const user = await k.kurz.services.access.userByName(name);
  const key = (await k.kurz.services.access.createKey(user!.id, `${name} key`, { scopes: ['admin'] })).secret;
  const cookie = await loginAs(k.base, name, MEMBER_PASSWORD);
  return {
    name,
    key,
    cookie,
    api: (method, path, body) =>
      fetch(k.base + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
      }),
    async page(path, form) {
      if (!form) return fetch(k.base + path, { headers: { cookie, accept: BROWSER_ACCEPT }, redirect: 'manual' });
      const csrf = csrfOf(await (await fetch(`${k.base}/`, { headers: { cookie, accept: BROWSER_ACCEPT } })).text());
      return fetch(k.base + path, {
        method: 'POST',
        headers: { cookie, accept: BROWSER_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...form }),
        redirect: 'manual',
      });
    },
  };
}
