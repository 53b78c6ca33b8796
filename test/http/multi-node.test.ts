import test, { type ExecutionContext } from 'ava';
import { backend, freshDatabase, runCli, startServe, waitFor, type ServeProcess } from '../helpers.ts';
import { createThrough, freshRequest } from '../support/fresh-connection.ts';

// Three kurz processes on one PostgreSQL database, as three machines behind a load balancer would run:
// the PostgreSQL pass of the test matrix runs these (on SQLite, --workers is the way to more processes).
const nodesTest = backend === 'postgres' ? test.serial : test.skip;

/** Ids a node reserves at a time: small, so that the test crosses many blocks. */
const BLOCK = '7';

async function threeNodes(t: ExecutionContext) {
  const database = await freshDatabase(t);
  const env = { ...database.env, KURZ_ID_BLOCK_SIZE: BLOCK };
  const made = await runCli(['keys', 'create', '--name', 'tests', '--json'], env);
  if (made.code !== 0) throw new Error(made.stderr);
  const key = (JSON.parse(made.stdout) as { key: string }).key;
  const nodes: ServeProcess[] = [];
  for (let i = 0; i < 3; i++) nodes.push(await startServe(t, env));
  return { database, env, key, nodes };
}

nodesTest('creations spread over three nodes get distinct codes that resolve on every node', async (t) => {
  const { key, nodes } = await threeNodes(t);
  const urls = Array.from({ length: 90 }, (_, i) => `https://example.com/node-page/${i}`);
  const codes = await Promise.all(urls.map((url, i) => createThrough(nodes[i % 3]!.url, key, url)));
  t.is(new Set(codes).size, urls.length);
  for (const [i, code] of codes.entries()) {
    for (const node of nodes) t.is((await freshRequest(`${node.url}/${code}`)).location, urls[i]!);
  }
});

nodesTest('an edit on the first node reaches the third within a second', async (t) => {
  const { key, nodes } = await threeNodes(t);
  const [first, , third] = nodes as [ServeProcess, ServeProcess, ServeProcess];
  const code = await createThrough(first.url, key, 'https://example.com/before');
  // The third node holds the code in its cache (kept from its first lookup while the cache has room).
  for (let i = 0; i < 3; i++) t.is((await freshRequest(`${third.url}/${code}`)).location, 'https://example.com/before');
  const edited = await freshRequest(`${first.url}/api/v1/links/${code}`, {
    method: 'PATCH',
    body: { url: 'https://example.com/after' },
    key,
  });
  t.is(edited.status, 200);
  const since = performance.now();
  await waitFor(async () => (await freshRequest(`${third.url}/${code}`)).location === 'https://example.com/after', 1000);
  t.log(`the third node answered the new target ${(performance.now() - since).toFixed(0)} ms after the edit`);
});

nodesTest(
  'rules and a split set on the first node reach the third within a second; every node draws one visitor the same variant',
  async (t) => {
    const { key, nodes } = await threeNodes(t);
    const [first, , third] = nodes as [ServeProcess, ServeProcess, ServeProcess];
    const code = await createThrough(first.url, key, 'https://example.com/own');
    for (let i = 0; i < 3; i++) t.is((await freshRequest(`${third.url}/${code}`)).location, 'https://example.com/own');
    const rules = [{ conditions: [{ type: 'ip-address', matchValue: '127.0.0.0/8' }], target: 'https://example.com/ruled' }];
    t.is((await freshRequest(`${first.url}/api/v1/links/${code}/rules`, { method: 'PUT', body: { rules }, key })).status, 200);
    await waitFor(async () => (await freshRequest(`${third.url}/${code}`)).location === 'https://example.com/ruled', 1000);

    t.is((await freshRequest(`${first.url}/api/v1/links/${code}/rules`, { method: 'PUT', body: { rules: [] }, key })).status, 200);
    const variants = ['https://example.com/a', 'https://example.com/b'];
    const split = variants.map((url) => ({ url, weight: 1 }));
    t.is((await freshRequest(`${first.url}/api/v1/links/${code}`, { method: 'PATCH', body: { split }, key })).status, 200);
    await waitFor(async () => variants.includes((await freshRequest(`${third.url}/${code}`)).location), 1000);
    // One visitor (one address, one user agent) on every node: one salt in the database, one variant.
    const drawn = await Promise.all(nodes.map(async (node) => (await freshRequest(`${node.url}/${code}`)).location));
    t.is(new Set(drawn).size, 1, `every node drew ${drawn.join(', ')}`);

    // The drawn variant paused on the first node: the third sends the visitor to the other one.
    const paused = split.map((v) => (v.url === drawn[0] ? { ...v, paused: true } : v));
    t.is((await freshRequest(`${first.url}/api/v1/links/${code}`, { method: 'PATCH', body: { split: paused }, key })).status, 200);
    const other = variants.find((url) => url !== drawn[0]);
    await waitFor(async () => (await freshRequest(`${third.url}/${code}`)).location === other, 1000);
  },
);

nodesTest('kill -9 of a node while creations run loses no acknowledged link, and no code is handed out twice', async (t) => {
  const { key, nodes } = await threeNodes(t);
  const [first, victim, third] = nodes as [ServeProcess, ServeProcess, ServeProcess];
  const acknowledged = new Map<string, string>();
  let failed = 0;
  let sent = 0;
  /** Creates on `node` until it stops answering (or `until` says so); records every 201. */
  const createOn = async (node: ServeProcess, tag: string, until: () => boolean): Promise<void> => {
    while (!until()) {
      const url = `https://example.com/${tag}/${sent++}`;
      try {
        acknowledged.set(await createThrough(node.url, key, url), url);
      } catch {
        failed++;
        if (node.child.exitCode !== null || node.child.signalCode !== null) return;
      }
    }
  };
  const killed = () => victim.child.signalCode !== null;
  // Four concurrent clients on the victim, one on each other node; the victim is killed mid-stream.
  const clients = [
    ...Array.from({ length: 4 }, (_, i) => createOn(victim, `victim-${i}`, killed)),
    createOn(first, 'first', () => killed() && acknowledged.size > 400),
    createOn(third, 'third', () => killed() && acknowledged.size > 400),
  ];
  await waitFor(() => acknowledged.size >= 200);
  victim.child.kill('SIGKILL');
  await Promise.all(clients);
  t.log(`${acknowledged.size} links acknowledged, ${failed} requests refused or cut off by the kill`);

  const codes = [...acknowledged.keys()];
  t.is(new Set(codes).size, codes.length, 'no code was handed out twice');
  let lost = 0;
  for (const [code, url] of acknowledged) {
    for (const node of [first, third]) if ((await freshRequest(`${node.url}/${code}`)).location !== url) lost++;
  }
  t.is(lost, 0, 'every acknowledged link resolves to its target on the surviving nodes');
  // A new node takes ids after the dead node's unused block: it never repeats one.
  const late = await createThrough(first.url, key, 'https://example.com/after-the-crash');
  t.false(acknowledged.has(late));
});
