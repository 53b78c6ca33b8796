import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { RedirectCache } from '../cache/redirect-cache.ts';
import { ConfigError, type Config } from '../config.ts';
import type { Logger } from '../core/log.ts';
import type { LinkStore } from '../store/ports.ts';
import { EMPTY_BLOCKLIST, entryCounts, matchBlocklist, type Blocklist, type BlocklistSource } from './blocklist.ts';
import { blocklistPaths, loadBlocklistFiles, readBlocklistFiles, watchFiles, type LoadedBlocklist } from './files.ts';
import type { LinkUrl } from '../links/link.ts';

export interface ScreeningDeps {
  config: Pick<Config, 'blocklist'>;
  links: LinkStore;
  cache: RedirectCache;
  log: Logger;
  now: () => number;
}

/** What one pass over the links did. */
export interface Screened {
  at: Date;
  links: number;
  blocked: number;
  unblocked: number;
  ms: number;
}

/** The blocklist in force, as the settings page shows it. */
export interface BlocklistStatus {
  files: Array<{ path: string; name: string; hosts: number; domains: number; urls: number; invalid: number }>;
  loadedAt: Date | null;
  /** Why the last reload failed (the list before it stays in force), or null. */
  failure: string | null;
  screened: Screened | null;
}

/** Links read per page of a scan. */
const PAGE = 250;
/** Links named one by one in the log per scan; the rest are counted. */
const LOGGED_LINKS = 1000;
/** How often the files' size and time are compared, for changes their folder's events miss. */
export const POLL_MS = 5000;
/** How long a burst of events must be quiet before the files are read. */
export const SETTLE_MS = 200;
/** How long after a failed scan (the database out of reach) it is tried again. */
const RETRY_MS = 5000;
/**
 * How often the links are screened again, the files unchanged: for links another process stored without the
 * list (a command run without the server's settings, an import with the list turned off).
 */
export const RESCREEN_MS = 3_600_000;

export type LinkScreening = ReturnType<typeof linkScreening>;

/**
 * Abuse screening with the `blocklist` files: the list in force (read at every creation and edit through
 * `source`), its reload when a file changes, and the scan that disables the live links whose target it
 * lists and brings back those it no longer lists. One process per database node screens (`start`); a
 * worker only reloads when its primary tells it to (`reload({ screen: false })`).
 */
export function linkScreening({ config, links, cache, log, now }: ScreeningDeps) {
  const paths = blocklistPaths(config.blocklist);
  let loaded: LoadedBlocklist | undefined;
  let loadedAt: Date | null = null;
  let failure: string | null = null;
  let screened: Screened | null = null;
  let watcher: { close(): void } | undefined;
  let retry: NodeJS.Timeout | undefined;
  let rescreen: NodeJS.Timeout | undefined;
  let failedScans = 0;
  let beforeScreen: () => Promise<void> = async () => undefined;
  /** The reload or scan under way, and those queued after it: one at a time. */
  let running: Promise<void> = Promise.resolve();
  /** A reload queued and not started yet: a change seen meanwhile is read by it. */
  let reloadQueued: Promise<void> | undefined;
  let stopping = false;

  /** Reads the files now, unless done already. Throws ConfigError naming a file that cannot be read. */
  function load(): LoadedBlocklist {
    if (loaded) return loaded;
    try {
      loaded = readBlocklistFiles(paths);
    } catch (err) {
      throw new ConfigError(`blocklist: ${(err as Error).message}`);
    }
    loadedAt = new Date(now());
    return loaded;
  }

  const source: BlocklistSource = {
    get current(): Blocklist {
      return paths.length === 0 ? EMPTY_BLOCKLIST : load().list;
    },
  };

  function logLoad(list: LoadedBlocklist): void {
    list.list.files.forEach((file, i) => {
      log.info('blocklist loaded', { file: list.paths[i], ...entryCounts(file), invalid: file.invalid, ms: Math.round(list.ms) });
      for (const sample of file.samples) {
        log.info('blocklist line skipped: not understood', {
          file: list.paths[i],
          line: sample.line,
          text: sample.text,
          reason: sample.reason,
          invalidLines: file.invalid,
        });
      }
    });
  }

  /**
   * Compares every live link with `list`: blocks those it lists, unblocks those it no longer lists (a link a
   * person disabled stays disabled: that is its own flag), in pages, each change in a write that holds only
   * if the target is still the one read. Idempotent: every node on a database may run it.
   */
  async function screen(list: Blocklist): Promise<Screened> {
    const started = performance.now();
    const result: Screened = { at: new Date(now()), links: 0, blocked: 0, unblocked: 0, ms: 0 };
    if (list.files.length === 0 && (await links.blockedCount()) === 0) return result;
    for (let after = 0; !stopping;) {
      const page = await links.liveUrlsAfter(after, PAGE);
      result.links += page.length;
      const changes: Array<{ link: LinkUrl; match: ReturnType<typeof matchBlocklist>; listed: string }> = [];
      for (const link of page) {
        // A link is blocked when any place it may send a visitor is listed: its target, a variant, a rule's target.
        let listed = link.url;
        let match = matchBlocklist(list, link.url);
        for (let i = 0; match === undefined && i < link.others.length; i++) {
          listed = link.others[i]!;
          match = matchBlocklist(list, listed);
        }
        if (match?.rule !== link.block?.rule || match?.list !== link.block?.list) changes.push({ link, match, listed });
      }
      if (changes.length > 0) {
        const at = new Date(now());
        const applied = await links.write(async (tx) => {
          const done: typeof changes = [];
          for (const change of changes) {
            const block = change.match ? { rule: change.match.rule, list: change.match.list, at } : null;
            if (await tx.setBlock(change.link.id, change.link.url, block)) done.push(change);
          }
          return done;
        });
        for (const { link, match, listed } of applied) {
          cache.forget(link.domain, link.code);
          if (match) result.blocked++;
          else result.unblocked++;
          if (result.blocked + result.unblocked > LOGGED_LINKS) continue;
          const host = URL.parse(match ? listed : link.url)?.hostname ?? '';
          if (match) log.info('link blocked: its target is on a blocklist', { code: link.code, host, rule: match.rule, list: match.list });
          else log.info('link unblocked: its target is no longer on a blocklist', { code: link.code, host, was: link.block?.rule });
        }
      }
      if (page.length < PAGE) break;
      after = page.at(-1)?.id ?? after;
      // A SQLite page is read without waiting: let the requests queued meanwhile in.
      await yieldToLoop();
    }
    result.ms = Math.round(performance.now() - started);
    const { links: read, blocked, unblocked, ms } = result;
    const more = blocked + unblocked - LOGGED_LINKS;
    log.info('blocklist screened the links', { links: read, blocked, unblocked, ms, ...(more > 0 ? { notNamedAbove: more } : {}) });
    return result;
  }

  /**
   * Screens against the list in force; without a list, only links blocked before need looking at. A failure
   * is tried again later.
   */
  async function screenInForce(): Promise<void> {
    try {
      const done = await screen(loaded?.list ?? EMPTY_BLOCKLIST);
      if (!stopping) screened = done;
      failedScans = 0;
    } catch (err) {
      // Said once per outage: the retries every RETRY_MS until the database answers are not news.
      if (failedScans++ === 0)
        log.error('blocklist: the links could not be screened; trying again soon', { reason: (err as Error).message, inMs: RETRY_MS });
      clearTimeout(retry);
      clearInterval(rescreen);
      retry = setTimeout(() => void serially(screenInForce), RETRY_MS).unref();
    }
  }

  /** Reads the files again; if they changed, puts the new list in force, then (`screen`) lets the others load it and screens. */
  async function reloadNow(options: { screen: boolean }): Promise<void> {
    const current = load();
    let next: LoadedBlocklist | undefined;
    try {
      next = await loadBlocklistFiles(paths, current.digest);
    } catch (err) {
      failure = (err as Error).message;
      log.error('blocklist not reloaded; the list before stays in force', { reason: failure, since: loadedAt?.toISOString() });
      return;
    }
    failure = null;
    if (!next) return;
    loaded = next;
    loadedAt = new Date(now());
    logLoad(next);
    // Every creation and edit checks the target again inside its write: once the writes handed over before
    // the swap are committed, none can store a target the new list names.
    await links.write(async () => undefined);
    if (!options.screen || stopping) return;
    await beforeScreen();
    await screenInForce();
  }

  /** Runs `work` after what is under way. */
  function serially(work: () => Promise<void>): Promise<void> {
    running = running.then(async () => {
      if (stopping) return;
      try {
        await work();
      } catch (err) {
        log.error('blocklist screening failed', { err });
      }
    });
    return running;
  }

  /** Queues a reload, unless one is queued and not started yet (it will read what changed). */
  function reloadSoon(options: { screen: boolean }): Promise<void> {
    return (reloadQueued ??= serially(async () => {
      reloadQueued = undefined;
      await reloadNow(options);
    }));
  }

  return {
    source,

    /** The server's start: reads the files (throws ConfigError naming one it cannot read) and logs what they hold. */
    load(): void {
      if (paths.length > 0) logLoad(load());
    },

    /**
     * Screens the links, then watches the files and screens again after each change and every RESCREEN_MS.
     * `beforeScreen` runs after each reload, before the scan (the primary has its workers load the new list
     * there, so that none creates a listed link after it).
     */
    start(options: { beforeScreen?: () => Promise<void> } = {}): void {
      if (options.beforeScreen) beforeScreen = options.beforeScreen;
      if (paths.length > 0) load();
      void serially(screenInForce);
      if (paths.length === 0) return;
      watcher = watchFiles(paths, () => void reloadSoon({ screen: true }), { pollMs: POLL_MS, settleMs: SETTLE_MS });
      rescreen = setInterval(() => void serially(screenInForce), RESCREEN_MS).unref();
    },

    /** Screens the links against the list in force now (what start's timer does); resolves when done. */
    screenAgain(): Promise<void> {
      return serially(screenInForce);
    },

    /** Reads the files again now; resolves once the new list is in force (and, with `screen`, the links screened). */
    reload(options: { screen: boolean }): Promise<void> {
      return paths.length === 0 ? Promise.resolve() : reloadSoon(options);
    },

    status(): BlocklistStatus {
      const list = loaded;
      return {
        files: (list?.list.files ?? []).map((file, i) => ({
          path: list?.paths[i] ?? '',
          name: file.name,
          ...entryCounts(file),
          invalid: file.invalid,
        })),
        loadedAt,
        failure,
        screened,
      };
    },

    /** Resolves once the reload or scan under way (and any queued) is done. */
    async idle(): Promise<void> {
      for (let seen: Promise<void> | undefined; seen !== running;) {
        seen = running;
        await seen;
      }
    },

    /** Stops watching; a scan under way stops after its page. Resolves once nothing runs. */
    async stop(): Promise<void> {
      stopping = true;
      watcher?.close();
      clearTimeout(retry);
      await running;
    },
  };
}
