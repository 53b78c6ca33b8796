import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { BROWSER_ACCEPT, freshDatabase, loginAs, runCli, startServe, tempDir, waitFor } from '../helpers.ts';

async function kurzOn(t: ExecutionContext) {
  const env = { ...(await freshDatabase(t)).env, KURZ_PUBLIC_URL: 'https://s.example' };
  return Object.assign((args: string[], input?: string) => runCli(args, env, { input }), { env });
}

const PASSWORD = 'a new admin password';

test('admin password takes the first line of standard input; then that password logs in and no other does', async (t) => {
  const kurz = await kurzOn(t);
  const changed = await kurz(['admin', 'password'], `${PASSWORD}\r\nignored second line\n`);
  t.deepEqual(changed, { code: 0, stdout: 'admin password changed; every login session was ended\n', stderr: '' });
  const server = await startServe(t, kurz.env);
  t.false(server.output().stdout.includes('generated password'), 'a set password is not replaced at start');
  const cookie = await loginAs(server.url, 'admin', PASSWORD);
  t.is((await fetch(`${server.url}/api/v1/links`, { headers: { cookie } })).status, 200);
  await t.throwsAsync(loginAs(server.url, 'admin', `${PASSWORD}\n`), { message: /login failed: 401/ });
});

test('admin password ends every login session, also of a running server', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz(['admin', 'password'], `${PASSWORD}\n`)).code, 0);
  const server = await startServe(t, kurz.env);
  const cookie = await loginAs(server.url, 'admin', PASSWORD);
  t.is((await fetch(`${server.url}/api/v1/links`, { headers: { cookie } })).status, 200);
  t.is((await kurz(['admin', 'password'], 'another password\n')).code, 0);
  t.is((await fetch(`${server.url}/api/v1/links`, { headers: { cookie } })).status, 401);
  t.truthy(await loginAs(server.url, 'admin', 'another password'));
});

const REFUSED: Array<[string, string]> = [
  ['short\n', 'kurz: password must have at least 8 characters\n'],
  ['', 'kurz: no password given: the first line of standard input was empty\n'],
  ['\nlong enough password\n', 'kurz: no password given: the first line of standard input was empty\n'],
  ['long enough password\u0000\n', 'kurz: password must not contain control characters (found U+0000)\n'],
  ['long enough\u001b[2J password\n', 'kurz: password must not contain control characters (found U+001B)\n'],
];
for (const [input, message] of REFUSED) {
  test(`admin password refuses ${JSON.stringify(input)} with exit 1, printing no password`, async (t) => {
    const kurz = await kurzOn(t);
    t.deepEqual(await kurz(['admin', 'password'], input), { code: 1, stdout: '', stderr: message });
  });
}

test('a refused password leaves the old one in place', async (t) => {
  const kurz = await kurzOn(t);
  t.is((await kurz(['admin', 'password'], `${PASSWORD}\n`)).code, 0);
  t.is((await kurz(['admin', 'password'], 'short\n')).code, 1);
  const server = await startServe(t, kurz.env);
  t.truthy(await loginAs(server.url, 'admin', PASSWORD));
});

test("admin password replaces the first start's generated password: its file is deleted and its session is no longer sent to change it", async (t) => {
  const database = await freshDatabase(t);
  const db = join(tempDir(t), 'kurz.db');
  const env = { ...database.env, KURZ_DB: db, ...(database.file === '' ? {} : { KURZ_DB: database.file }) };
  const server = await startServe(t, env);
  const file = join(dirname(env.KURZ_DB), 'kurz-admin-password');
  await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'));
  const generated = readFileSync(file, 'utf8').trim();
  const cookie = await loginAs(server.url, 'admin', generated);
  const before = await fetch(server.url, { headers: { cookie, accept: BROWSER_ACCEPT }, redirect: 'manual' });
  t.is(before.headers.get('location'), '/account/password');
  t.is((await runCli(['admin', 'password'], env, { input: `${PASSWORD}\n` })).code, 0);
  t.false(existsSync(file));
  const own = await loginAs(server.url, 'admin', PASSWORD);
  t.is((await fetch(server.url, { headers: { cookie: own, accept: BROWSER_ACCEPT }, redirect: 'manual' })).status, 200);
});

test('with passwordLogin off, admin password still works: the way back in while the provider is down', async (t) => {
  const kurz = await kurzOn(t);
  const ssoOnly = { KURZ_OIDC_ISSUER: 'https://auth.example.com', KURZ_OIDC_CLIENT_ID: 'kurz', KURZ_PASSWORD_LOGIN: 'off' };
  const changed = await runCli(['admin', 'password'], { ...kurz.env, ...ssoOnly }, { input: `${PASSWORD}\n` });
  t.deepEqual(changed, { code: 0, stdout: 'admin password changed; every login session was ended\n', stderr: '' });
  // Started again with the password form on, the new password logs in.
  const server = await startServe(t, kurz.env);
  const cookie = await loginAs(server.url, 'admin', PASSWORD);
  t.is((await fetch(`${server.url}/api/v1/links`, { headers: { cookie } })).status, 200);
});
