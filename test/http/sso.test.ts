import test, { type ExecutionContext } from 'ava';
import { BROWSER_ACCEPT, cookiesOf, csrfOf, startKurz, waitFor, type TestKurz } from '../helpers.ts';
import { signInAt, ssoSettings, startProvider } from '../support/oidc-provider.ts';

/**
 * Single sign-on against a real OpenID provider (oidc-provider on a free local port), driven over HTTP as
 * a browser would: what opens a session, and every way a callback is refused (a 4xx page, no session).
 */

const PUBLIC_URL = 'https://kurz.test';
const SESSION = '__Host-kurz_session';
const FLOW = '__Host-kurz_sso';

async function kurzWithProvider(t: ExecutionContext, settings: Record<string, unknown> = {}, claimsInIdToken = true): Promise<TestKurz> {
  const { issuer } = await startProvider(t, [`${PUBLIC_URL}/login/sso/callback`], { claimsInIdToken });
  return startKurz(t, { publicUrl: PUBLIC_URL, ...ssoSettings(issuer), ...settings });
}

const page = (k: TestKurz, path: string, cookie = '') =>
  fetch(k.base + path, { headers: { accept: BROWSER_ACCEPT, ...(cookie ? { cookie } : {}) }, redirect: 'manual' });

/** Starts a flow at kurz: the provider's authorization URL and the browser's cookies (the flow cookie). */
async function startFlow(k: TestKurz, jar = ''): Promise<{ url: string; jar: string }> {
  const res = await page(k, '/login/sso?next=/links', jar);
  if (res.status !== 303) throw new Error(`/login/sso answered ${res.status}: ${await res.text()}`);
  return { url: res.headers.get('location') ?? '', jar: cookiesOf(res, jar) };
}

/** kurz's callback as the provider sent the browser back to it (its URL is on the public host). */
const callbackPath = (url: URL) => url.pathname + url.search;

function hasSession(res: Response): boolean {
  return res.headers.getSetCookie().some((line) => line.startsWith(`${SESSION}=`) && !line.startsWith(`${SESSION}=;`));
}

test('an admin signs on: PKCE, state and nonce are sent, the session opens, the flow cookie ends', async (t) => {
  const k = await kurzWithProvider(t);
  // A password a person chose: with the generated one, every admin session is first sent to change it.
  await k.kurz.services.access.setPassword('correct horse battery staple');
  const { url, jar } = await startFlow(k);
  const authorize = new URL(url);
  t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
  t.truthy(authorize.searchParams.get('code_challenge'));
  t.truthy(authorize.searchParams.get('state'));
  t.truthy(authorize.searchParams.get('nonce'));
  t.is(authorize.searchParams.get('redirect_uri'), `${PUBLIC_URL}/login/sso/callback`);
  t.true(jar.includes(`${FLOW}=`));
  const back = await signInAt(url, 'alice');
  t.is(back.origin, PUBLIC_URL);
  const res = await page(k, callbackPath(back), jar);
  t.is(res.status, 303, await res.clone().text());
  t.is(res.headers.get('location'), '/links');
  t.true(hasSession(res));
  const flowCookie = res.headers.getSetCookie().find((line) => line.startsWith(`${FLOW}=`)) ?? '';
  t.regex(flowCookie, /expires=Thu, 01 Jan 1970/i);
  const loggedIn = cookiesOf(res, jar);
  t.is((await page(k, '/links', loggedIn)).status, 200);
  // The same answer again (a replayed callback) opens nothing.
  const replay = await page(k, callbackPath(back), jar);
  t.is(replay.status, 400);
  t.regex(await replay.text(), /finished already/);
  t.false(hasSession(replay));
});

test('claims the ID token lacks are read from the UserInfo endpoint (as Authelia sends them)', async (t) => {
  const k = await kurzWithProvider(t, {}, false);
  await k.kurz.services.access.setPassword('correct horse battery staple');
  const admin = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(admin.url, 'alice')), admin.jar);
  t.is(res.status, 303, await res.clone().text());
  t.true(hasSession(res));
  t.like(await k.kurz.services.access.userByName('alice'), { role: 'admin' }, 'the admin claim came from UserInfo');
  const member = await startFlow(k);
  const signedOn = await page(k, callbackPath(await signInAt(member.url, 'bob')), member.jar);
  t.is(signedOn.status, 303);
  t.like(await k.kurz.services.access.userByName('bob'), { role: 'member', state: 'active' });
});

test('the first sign-on creates the member (the admin claim: an admin); a disabled one is refused', async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(url, 'bob')), jar);
  t.is(res.status, 303, await res.clone().text());
  t.true(hasSession(res));
  const bob = await k.kurz.services.access.userByName('bob');
  t.like(bob, { role: 'member', state: 'active', hasPassword: false });
  t.truthy(bob?.email);
  // His session is a member's: his own links, not the users page.
  const jarBob = cookiesOf(res, jar);
  t.is((await page(k, '/links', jarBob)).status, 200);
  t.is((await page(k, '/users', jarBob)).status, 403);
  const alice = await startFlow(k);
  t.is((await page(k, callbackPath(await signInAt(alice.url, 'alice')), alice.jar)).status, 303);
  t.like(await k.kurz.services.access.userByName('alice'), { role: 'admin' });
  // Disabled by an admin: signing on again is refused, with no session.
  await k.request('PATCH', '/api/v1/users/bob', { state: 'disabled' });
  const again = await startFlow(k);
  const refused = await page(k, callbackPath(await signInAt(again.url, 'bob')), again.jar);
  t.is(refused.status, 403);
  t.regex(await refused.text(), /bob is disabled/);
  t.false(hasSession(refused));
});

test('with oidcCreateUsers off, someone kurz does not know is refused: 403, no session', async (t) => {
  const k = await kurzWithProvider(t, { oidcCreateUsers: false });
  const { url, jar } = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(url, 'bob')), jar);
  t.is(res.status, 403);
  t.regex(await res.text(), /no kurz account for bob/);
  t.false(hasSession(res));
  t.is(await k.kurz.services.access.userByName('bob'), undefined);
});

test('a user name kurz cannot take is refused, naming it', async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(url, 'carol')), jar);
  t.is(res.status, 403);
  t.regex(await res.text(), /carol smith/);
  t.false(hasSession(res));
});

test("a callback whose state is not the flow cookie's is refused", async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const back = await signInAt(url, 'alice');
  back.searchParams.set('state', 'another-state');
  const res = await page(k, callbackPath(back), jar);
  t.is(res.status, 400);
  t.regex(await res.text(), /state does not match/);
  t.false(hasSession(res));
});

test('a callback without the flow cookie (another browser) is refused', async (t) => {
  const k = await kurzWithProvider(t);
  const { url } = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(url, 'alice')));
  t.is(res.status, 400);
  t.regex(await res.text(), /not started in this browser/);
  t.false(hasSession(res));
});

test('a flow cookie from another flow of the same browser is refused (its state differs)', async (t) => {
  const k = await kurzWithProvider(t);
  const first = await startFlow(k);
  const second = await startFlow(k);
  const res = await page(k, callbackPath(await signInAt(second.url, 'alice')), first.jar);
  t.is(res.status, 400);
  t.false(hasSession(res));
});

test("an ID token carrying another nonce is refused by openid-client's checks", async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const tampered = new URL(url);
  tampered.searchParams.set('nonce', 'a nonce this browser never had');
  const res = await page(k, callbackPath(await signInAt(tampered.href, 'alice')), jar);
  t.is(res.status, 400);
  t.regex(await res.text(), /nonce/);
  t.false(hasSession(res));
});

test('a flow older than 10 minutes is refused', async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const back = await signInAt(url, 'alice');
  k.clock.advance(10 * 60_000 + 1);
  const res = await page(k, callbackPath(back), jar);
  t.is(res.status, 400);
  t.regex(await res.text(), /expired/);
  t.false(hasSession(res));
});

test("the provider's error=access_denied (the user cancelled there) is shown with its description", async (t) => {
  const k = await kurzWithProvider(t);
  const { url, jar } = await startFlow(k);
  const back = await signInAt(url, 'alice', { cancel: true });
  t.is(back.searchParams.get('error'), 'access_denied');
  const res = await page(k, callbackPath(back), jar);
  t.is(res.status, 403);
  t.regex(await res.text(), /the provider refused the sign-on: access_denied \(End-User aborted interaction\)/);
  t.false(hasSession(res));
});

test('a provider that cannot be reached: kurz starts, warns, and /login/sso answers 503', async (t) => {
  // Port 1 on loopback: nothing listens there.
  const k = await startKurz(t, { publicUrl: PUBLIC_URL, ...ssoSettings('http://127.0.0.1:1') });
  await waitFor(() => k.log.records.some((r) => r.level === 'warn' && r.message.startsWith('single sign-on')));
  t.is((await page(k, '/healthz')).status, 200);
  const res = await page(k, '/login/sso');
  t.is(res.status, 503);
  t.regex(await res.text(), /single sign-on is not available/);
  const login = await (await page(k, '/login')).text();
  t.regex(login, /Sign in with single sign-on/);
});

test('with passwordLogin false the form is gone and POST /login is refused with 403', async (t) => {
  const k = await kurzWithProvider(t, { passwordLogin: false });
  await k.kurz.services.access.setPassword('correct horse battery staple');
  const res = await page(k, '/login');
  const html = await res.text();
  t.regex(html, /Sign in with single sign-on/);
  t.notRegex(html, /name="password"/);
  t.throws(() => csrfOf(html));
  const post = await fetch(`${k.base}/login`, {
    method: 'POST',
    headers: { cookie: cookiesOf(res), 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT },
    body: new URLSearchParams({ user: 'admin', password: 'correct horse battery staple', next: '/' }),
    redirect: 'manual',
  });
  t.is(post.status, 403);
  t.regex(await post.text(), /passwords are not taken here/);
  t.false(hasSession(post));
});

test('without single sign-on, its routes are 404 and the login page has no button', async (t) => {
  const k = await startKurz(t);
  t.is((await page(k, '/login/sso')).status, 404);
  t.is((await page(k, '/login/sso/callback?code=x&state=y')).status, 404);
  t.notRegex(await (await page(k, '/login')).text(), /single sign-on/);
});
