import test from 'ava';
import { RedirectCache } from '../../src/cache/redirect-cache.ts';
import type { LinkChange, Target } from '../../src/links/link.ts';
import { followChanges } from '../../src/links/resolve.ts';
import type { LinkStore } from '../../src/store/ports.ts';

const target = (url: string): Target => ({ id: 1, url, deleted: false, gate: null });

/** A change log whose entries become visible when the test commits them, in any order. */
function changeLog() {
  const committed: LinkChange[] = [];
  const links = {
    lastChange: async () => Math.max(0, ...committed.map((c) => c.seq)),
    changesAfter: async (seq: number) => committed.filter((c) => c.seq > seq).sort((a, b) => a.seq - b.seq),
    forgetChangesUpTo: async () => undefined,
  } as unknown as LinkStore;
  return { links, commit: (seq: number, code: string) => committed.push({ seq, linkId: 1, domain: 0, code }) };
}

test('an entry that commits after a newer one still drops its code from the cache', async (t) => {
  const { links, commit } = changeLog();
  const cache = new RedirectCache({ size: 100, negativeTtl: 0, now: () => 0 });
  for (const code of ['a', 'b', 'c']) for (let i = 0; i < 2; i++) cache.remember(0, code, target(`https://example.com/${code}`));
  const changes = await followChanges({ links, cache, domainsChanged: () => undefined });

  commit(1, 'a');
  commit(3, 'c');
  await changes.poll();
  t.is(cache.get(0, 'a'), undefined);
  t.is(cache.get(0, 'c'), undefined);
  t.not(cache.get(0, 'b'), undefined, 'untouched so far');

  // Entry 2 was numbered before 3 but committed after it (two nodes, one sequence).
  commit(2, 'b');
  await changes.poll();
  t.is(cache.get(0, 'b'), undefined);

  // Entries already applied are not applied again: a code cached since stays cached.
  for (let i = 0; i < 2; i++) cache.remember(0, 'a', target('https://example.com/a2'));
  await changes.poll();
  t.deepEqual(cache.get(0, 'a'), target('https://example.com/a2'));
});
