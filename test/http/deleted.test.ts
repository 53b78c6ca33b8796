import test from 'ava';
import { BROWSER_ACCEPT, startKurz } from '../helpers.ts';
import { SERVER_ADMIN } from '../../src/auth/actor.ts';

test('a deleted link answers 410 Gone, and its code can never be taken again', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/old', alias: 'spring-sale' });
  t.is((await k.get('/spring-sale')).status, 302);
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, 'spring-sale');

  const json = await k.get('/spring-sale');
  t.is(json.status, 410);
  t.like((await json.json()) as object, { code: 'gone', detail: 'the link "spring-sale" was deleted; its code is not reused' });
  const page = await k.get('/spring-sale', { accept: BROWSER_ACCEPT });
  t.is(page.status, 410);
  t.regex(await page.text(), /410 · Gone/);

  const again = await k.postJson('/api/v1/links', { url: 'https://example.com/new', alias: 'spring-sale' });
  t.is(again.status, 409);
});

test('a deleted link is no dedupe target: the same URL gets a new code', async (t) => {
  const k = await startKurz(t);
  const first = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/x' })).json()) as { code: string };
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, first.code);
  const second = await k.postJson('/api/v1/links', { url: 'https://example.com/x' });
  t.is(second.status, 201);
  t.not(((await second.json()) as { code: string }).code, first.code);
});

test('only edits and deletions enter the change log, not visit counts', async (t) => {
  const k = await startKurz(t);
  const { code } = (await (await k.postJson('/api/v1/links', { url: 'https://example.com/log' })).json()) as { code: string };
  await k.get(`/${code}`);
  await k.flushVisits();
  const changes = async () => (await k.sql<{ code: string }>('SELECT code FROM link_changes')).map((r) => r.code);
  t.deepEqual(await changes(), []);
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, code);
  t.deepEqual(await changes(), [code]);
});

test('re-using the alias of a deleted link says it belonged to a deleted link', async (t) => {
  const k = await startKurz(t);
  await k.postJson('/api/v1/links', { url: 'https://example.com/old', alias: 'spring' });
  await k.kurz.services.links.deleteLink(SERVER_ADMIN, 'spring');
  const again = await k.postJson('/api/v1/links', { url: 'https://example.com/new', alias: 'spring' });
  t.is(again.status, 409);
  t.like((await again.json()) as object, {
    code: 'conflict',
    field: 'alias',
    detail: 'alias "spring" belonged to a deleted link; codes are never reused',
  });
});
