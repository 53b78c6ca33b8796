import { BROWSER_ACCEPT, csrfOf, type TestKurz } from '../helpers.ts';

/** A browser's view of kurz for the page tests: a cookie jar (logged in or not) and form posts with or without the CSRF token. */
export interface Browser {
  cookie: string;
  get(path: string): Promise<Response>;
  /** GET `path` and its HTML. */
  page(path: string): Promise<{ res: Response; html: string }>;
  /** POST a form as it is (`_csrf` only if given). */
  post(path: string, fields: Record<string, string>): Promise<Response>;
  /** POST a form with the CSRF token of the session's pages. */
  submit(path: string, fields: Record<string, string>): Promise<Response>;
  csrf(): Promise<string>;
  /** GET where a 303 `res` leads, with the cookies it set beside the session's, as a browser follows it. */
  follow(res: Response): Promise<{ res: Response; html: string }>;
}

/** A browser logged in as the admin (or, with `loggedIn` false, a stranger with no cookies). */
export async function browser(k: TestKurz, loggedIn = true): Promise<Browser> {
  const cookie = loggedIn ? await k.login() : '';
  const headers = (extra: Record<string, string> = {}) => ({ accept: BROWSER_ACCEPT, ...(cookie ? { cookie } : {}), ...extra });
  const get = (path: string) => fetch(k.base + path, { headers: headers(), redirect: 'manual' });
  const post = (path: string, fields: Record<string, string>) =>
    fetch(k.base + path, {
      method: 'POST',
      headers: headers({ 'content-type': 'application/x-www-form-urlencoded' }),
      body: new URLSearchParams(fields),
      redirect: 'manual',
    });
  const csrf = async () => csrfOf(await (await get('/settings')).text());
  return {
    cookie,
    get,
    async page(path) {
      const res = await get(path);
      return { res, html: await res.text() };
    },
    post,
    async submit(path, fields) {
      return post(path, { _csrf: await csrf(), ...fields });
    },
    csrf,
    async follow(res) {
      const set = res.headers.getSetCookie().map((line) => line.slice(0, line.indexOf(';')));
      const jar = [cookie, ...set].filter(Boolean).join('; ');
      const next = await fetch(new URL(res.headers.get('location') ?? '/', k.base), {
        headers: { accept: BROWSER_ACCEPT, cookie: jar },
        redirect: 'manual',
      });
      return { res: next, html: await next.text() };
    },
  };
}
