import type { CrawlableLink } from '../../links/robots.ts';
import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { unknownDomain } from '../../domains/domain.ts';
import type { Link, LinkChange, LinkOptions, LinkQuery, NewLink } from '../../links/link.ts';
import { listAsk } from '../list-ask.ts';
import { createGroupCommit } from '../group-commit.ts';
import { storedPreview } from '../../links/preview.ts';
import { storedPages } from '../../rules/page-settings.ts';
import type { LinkStore, LinkWriter, StoredFormAnswer } from '../ports.ts';
import { creatorColumns } from '../audit-rows.ts';
import { toLink, toLinkUrl, toTarget, type LinkRow, type LinkUrlRow, type TargetRow } from '../rows.ts';
import type { QueryResultRow } from 'pg';
import type { Database, Querier } from './database.ts';
import * as q from './queries.ts';
import { addSums, columns } from './visit-store.ts';

/** Links read per query when all of them are exported. */
const PAGE = 1000;

/**
 * Group-commit transactions written at once, each on a connection of its own: a job's statements are one
 * round trip each, so one transaction at a time leaves both processes waiting on each other; jobs of
 * concurrent transactions meet on row locks and unique indexes, as those of two nodes do.
 */
const WRITE_TRANSACTIONS = 4;

/** Times a job that lost a deadlock to another node runs again in its savepoint before it fails. */
const JOB_ATTEMPTS = 3;

export interface PostgresLinkStore extends LinkStore {
  /** Resolves once every write handed over so far is committed (or refused). */
  idle(): Promise<void>;
}

type Job = (tx: LinkWriter) => Promise<unknown>;

/**
 * The link store on a PostgreSQL pool. Reads run on any connection; writes go through a group commit: the
 * writes of one turn of the event loop share one transaction on one connection, each in its own savepoint,
 * and up to WRITE_TRANSACTIONS such transactions run at once.
 * Link ids come from blocks of `idBlockSize` this node reserves, so nodes never wait on each other for one.
 */
export function createPostgresLinkStore(db: Database, idBlockSize: number, log: Pick<Logger, 'error'>): PostgresLinkStore {
  let nextId = 0;
  let endId = 0;
  let reserving: Promise<void> | undefined;

  async function reserveIds(): Promise<void> {
    const { rows } = await db.query<{ first: number }>(q.RESERVE_LINK_IDS, [idBlockSize]);
    nextId = rows[0]!.first;
    endId = nextId + idBlockSize;
  }

  async function takeLinkId(): Promise<number> {
    while (nextId >= endId) {
      reserving ??= reserveIds().finally(() => (reserving = undefined));
      await reserving;
    }
    return nextId++;
  }

  /** Gives back the id last taken, unused: an insert whose code was taken then costs no id, as in SQLite. */
  function giveBackLinkId(id: number): void {
    if (id === nextId - 1) nextId = id;
  }

  async function setTags(tx: Querier, id: number, tags: readonly string[]): Promise<void> {
    if (tags.length > 0) await tx.query(q.INSERT_TAGS, [id, tags]);
  }

  /**
   * Inserts with the id `params` start with (one taken here when `own`) and returns it; undefined when
   * the code is taken.
   */
  async function insert(tx: Querier, sql: string, params: unknown[], tags: readonly string[], own: boolean): Promise<number | undefined> {
    const { rows } = await tx.query<{ id: number }>(sql, params);
    const id = rows[0]?.id;
    if (id !== undefined) await setTags(tx, id, tags);
    else if (own) giveBackLinkId(params[0] as number);
    return id;
  }

  /**
   * Throws AppError('invalid') unless the domain exists (and was not removed): a link never lands on none.
   * Holds the domain until the write commits, so that a removal waits for the link and then counts it. The
   * default domain is never removed: nothing to read or hold.
   */
  async function holdDomain(tx: Querier, domain: number): Promise<void> {
    if (domain !== 0 && (await tx.query(q.HOLD_LIVE_DOMAIN, [domain])).rowCount === 0) throw unknownDomain(String(domain));
  }

  function writerOn(tx: Querier): LinkWriter {
    return {
      takeLinkId,
      linkByAddress: async (domain, code) => toLink((await tx.query<LinkRow>(q.LINK_BY_ADDRESS_FOR_UPDATE, [code, domain])).rows[0]),
      async linkByUrlHash(urlHash, since, domain, owner, inReview = false) {
        await tx.query(q.LOCK_URL_HASH, [urlHash.readInt32BE(0)]);
        const params = [urlHash, since.getTime(), domain, owner, inReview];
        const id = (await tx.query<{ id: number | null }>(q.LINK_ID_BY_URL_HASH, params)).rows[0]?.id;
        return id == null ? undefined : toLink((await tx.query<LinkRow>(q.LINK_BY_ID, [id])).rows[0]);
      },
      async insertLink(link: NewLink, id) {
        await holdDomain(tx, link.domain);
        const params = insertParams(link, id ?? (await takeLinkId()));
        const inserted = await insert(tx, q.INSERT_LINK, params, link.tags, id === null);
        if (inserted !== undefined && link.preview !== null) await tx.query(q.SET_PREVIEW, [inserted, storedPreview(link.preview)]);
        return inserted;
      },
      async addPastVisits(sums) {
        await addSums(tx, sums);
      },
      async importLink(record, urlHash) {
        await holdDomain(tx, record.domain);
        const params = [
          await takeLinkId(),
          ...newLinkParams(record, urlHash),
          record.updatedAt.getTime(),
          record.deletedAt?.getTime() ?? null,
          record.claimedVisits,
          ...laterOptionParams(record),
        ];
        const id = await insert(tx, q.IMPORT_LINK, params, record.tags, true);
        if (id !== undefined && record.preview !== null) await tx.query(q.SET_PREVIEW, [id, storedPreview(record.preview)]);
        const pages = record.pages === undefined ? null : storedPages(record.pages);
        if (id !== undefined && pages !== null) await tx.query(q.SET_PAGES, [id, pages, record.updatedAt.getTime()]);
        if (id !== undefined && record.visitCount > 0) {
          await tx.query(q.ADD_LINK_VISITS, [[id], [record.visitCount], [(record.lastVisitAt ?? record.createdAt).getTime()]]);
        }
        return id;
      },
      async updateLink(link, edit, urlHash, at) {
        const merged = { ...link, ...edit };
        if (merged.domain !== link.domain) {
          await holdDomain(tx, merged.domain);
          // Refused before the update, as on SQLite, whether the link is live or deleted.
          if ((await tx.query(q.LINK_BY_ADDRESS, [link.code, merged.domain])).rowCount !== 0) throw movedOntoTaken(link);
        }
        const params = [
          link.id,
          merged.url,
          urlHash,
          ...optionParams(merged),
          at.getTime(),
          merged.domain,
          merged.ownerId,
          ...laterOptionParams(merged),
        ];
        if ((await updateOrRefuseMove(tx, params, link)).rowCount === 0) return false;
        if (edit.tags !== undefined) {
          await tx.query(q.DELETE_TAGS, [link.id]);
          await setTags(tx, link.id, edit.tags);
        }
        if (edit.preview !== undefined) await tx.query(q.SET_PREVIEW, [link.id, storedPreview(edit.preview)]);
        return true;
      },
      deleteLink: async (id, at) => (await tx.query(q.DELETE_LINK, [id, at.getTime()])).rowCount === 1,
      handOverLinks: async (from, to) => (await tx.query(q.HAND_OVER_LINKS, [to, from])).rowCount ?? 0,
      renameTag: async (from, to, owner) => {
        await tx.query(q.ADD_RENAMED_TAG, [from, to, owner]);
        return (await tx.query(q.DELETE_TAG, [from, owner])).rowCount ?? 0;
      },
      deleteTag: async (tag, owner) => (await tx.query(q.DELETE_TAG, [tag, owner])).rowCount ?? 0,
      setBlock: async (id, url, block) =>
        (await tx.query(q.SET_BLOCK, [id, url, block?.rule ?? null, block?.list ?? null, block?.at.getTime() ?? null])).rowCount === 1,
      unvisitedSince: async (cutoff) => (await tx.query<LinkRow>(q.UNVISITED_LINKS, [cutoff.getTime()])).rows.map((row) => toLink(row)!),
      setReview: async (id, from, to, at) => (await tx.query(q.SET_REVIEW, [id, from, to, at.getTime()])).rowCount === 1,
      setRules: async (id, rules, at) => (await tx.query(q.SET_RULES, [id, rules, at.getTime()])).rowCount === 1,
      setSplit: async (id, split, at) => (await tx.query(q.SET_SPLIT, [id, split, at.getTime()])).rowCount === 1,
      setPages: async (id, pages, at) => (await tx.query(q.SET_PAGES, [id, pages, at.getTime()])).rowCount === 1,
      addFormAnswer: async (linkId, at, answers) => void (await tx.query(q.ADD_FORM_ANSWER, [linkId, at.getTime(), answers])),
      deleteFormAnswers: async (linkId) => (await tx.query(q.DELETE_FORM_ANSWERS, [linkId])).rowCount ?? 0,
    };
  }

  /**
   * Runs a job in its own savepoint: undone alone if it fails, run again if it lost a deadlock. The savepoint
   * stays open after the job (the next job's releases it in the same round trip as it starts its own, and
   * COMMIT the last one's): `first` says there is none yet.
   */
  async function runJob(tx: Querier, job: Job, first: boolean): Promise<unknown> {
    await tx.query(first ? q.SAVEPOINT : q.NEXT_SAVEPOINT);
    for (let attempt = 1; ; attempt++) {
      try {
        return await job(writerOn(tx));
      } catch (err) {
        // The savepoint stays, for another attempt or the next job to release.
        await tx.query(q.ROLLBACK_TO);
        const code = (err as { code?: unknown } | undefined)?.code;
        if ((code === '40P01' || code === '40001') && attempt < JOB_ATTEMPTS) continue;
        return err instanceof Error ? err : new Error(String(err));
      }
    }
  }

  /**
   * Runs a batch's jobs at once in one savepoint, each on a writer that queues its dedupe probes and link
   * inserts: each turn's go to the database as one statement of each kind, so a batch of creations costs a
   * few round trips instead of four per link. Which jobs may share a statement decides their outcomes as
   * if they ran one after another: a job that meets an earlier one of the batch on a URL or a code, or that
   * does anything but create (its writer refuses with RunAlone), stands aside, having written nothing, and
   * runs alone after the others (undefined in the answer). Undefined when they cannot all stand (a statement
   * failed, or a job failed or stood aside after it wrote): the caller undoes the savepoint and runs every
   * job alone.
   */
  async function runTogether(tx: Querier, jobs: readonly Job[]): Promise<Array<{ value: unknown } | undefined> | undefined> {
    type Queued<P, R> = { params: P; resolve: (result: R) => void; reject: (err: unknown) => void };
    let probes: Array<Queued<unknown[], number | null>> = [];
    let inserts: Array<Queued<unknown[], boolean>> = [];
    let failed = false;
    let wake = (): void => undefined;
    /** The jobs' statements, one after another on the transaction's connection, a failure noted. */
    let last: Promise<unknown> = Promise.resolve();
    const checked: Querier = {
      query<R extends QueryResultRow>(sql: string, params?: unknown[]) {
        const result = last.then(() => tx.query<R>(sql, params));
        last = result.catch(() => undefined);
        return result.catch((err: unknown) => {
          failed = true;
          throw err;
        });
      },
    };
    const queue = <P, R>(into: Array<Queued<P, R>>, params: P): Promise<R> =>
      new Promise<R>((resolve, reject) => {
        into.push({ params, resolve, reject });
        wake();
      });
    /** Which job first used each URL hash and code in this pass. */
    const users = new Map<string, number>();
    const states = jobs.map(() => ({ wrote: false, aside: false, tookId: false, done: false }));
    /** The first job that has neither taken an id nor finished: ids go to the jobs in their order, as one at a time. */
    let turn = 0;
    /** The jobs waiting for their turn to take an id, each woken when its turn comes: once, not at every move. */
    const waitingTurn = new Map<number, () => void>();
    const advance = (): void => {
      while (turn < jobs.length && (states[turn]!.tookId || states[turn]!.done)) turn++;
      const wake = waitingTurn.get(turn);
      if (wake === undefined) return;
      waitingTurn.delete(turn);
      wake();
    };

    // One writer on the shared connection for every job (it holds nothing of a job's), and its methods' names.
    const own = writerOn(checked);
    const names = Object.keys(own) as Array<keyof LinkWriter>;

    function writerFor(i: number): LinkWriter {
      const state = states[i]!;
      const standAside = (): never => {
        state.aside = true;
        throw new RunAlone();
      };
      const use = (key: string): void => {
        if ((users.get(key) ?? i) !== i) standAside();
        users.set(key, i);
      };
      // Every method but those below refuses: one function for them all, not one each, in every job of a batch.
      const refuse = async (): Promise<never> => standAside();
      const refused: Record<string, unknown> = {};
      for (const name of names) refused[name] = refuse;
      const takeId = async (): Promise<number> => {
        // The turn stops at the first job that has neither taken an id nor finished: this one, once it is here.
        if (turn < i) await new Promise<void>((resolve) => waitingTurn.set(i, resolve));
        const id = await takeLinkId();
        state.tookId = true;
        advance();
        return id;
      };
      const allowed: Partial<LinkWriter> = {
        takeLinkId: takeId,
        linkByAddress: own.linkByAddress,
        async linkByUrlHash(urlHash, since, domain, owner, inReview = false) {
          use(`url ${urlHash.toString('hex')}`);
          const id = await queue(probes, [urlHash, since.getTime(), domain, owner, inReview]);
          return id === null ? undefined : toLink((await checked.query<LinkRow>(q.LINK_BY_ID, [id])).rows[0]);
        },
        async insertLink(link, given) {
          use(`code ${link.code}`);
          if (link.urlHash !== null) use(`url ${link.urlHash.toString('hex')}`);
          await holdDomain(checked, link.domain);
          const id = given ?? (await takeId());
          if (!(await queue(inserts, insertParams(link, id)))) return undefined;
          state.wrote = true;
          await setTags(checked, id, link.tags);
          if (link.preview !== null) await checked.query(q.SET_PREVIEW, [id, storedPreview(link.preview)]);
          return id;
        },
        async setSplit(id, split, at) {
          state.wrote = true;
          return own.setSplit(id, split, at);
        },
        async setPages(id, pages, at) {
          state.wrote = true;
          return own.setPages(id, pages, at);
        },
      };
      return Object.assign(refused, allowed) as LinkWriter;
    }

    /** Sends what the jobs have queued: each kind in one statement. */
    async function send(): Promise<void> {
      const [probing, inserting] = [probes, inserts];
      probes = [];
      inserts = [];
      try {
        if (probing.length > 0) {
          const params = columns(probing, (p) => p.params);
          await checked.query(q.LOCK_URL_HASHES, [(params[0] as Buffer[]).map((hash) => hash.readInt32BE(0))]);
          const { rows } = await checked.query<{ id: number | null }>(q.LINK_IDS_BY_URL_HASH, params);
          probing.forEach((p, k) => p.resolve(rows[k]?.id ?? null));
        }
        if (inserting.length > 0) {
          const { rows } = await checked.query<{ id: number }>(
            q.INSERT_LINKS,
            columns(inserting, (p) => p.params),
          );
          const inserted = new Set(rows.map((row) => row.id));
          for (const p of inserting) p.resolve(inserted.has(p.params[0] as number));
        }
      } catch (err) {
        for (const p of [...probing, ...inserting]) p.reject(err);
      }
    }

    let running = jobs.length;
    const outcomes = jobs.map((job, i) =>
      job(writerFor(i))
        .then(
          (value) => ({ value }),
          (err: unknown) => ({ value: err instanceof Error ? err : new Error(String(err)), failed: true }),
        )
        .finally(() => {
          running--;
          states[i]!.done = true;
          advance();
          wake();
        }),
    );
    while (running > 0) {
      if (probes.length === 0 && inserts.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      // Every job that can go on reaches its next probe or insert in this turn.
      await new Promise((resolve) => setImmediate(resolve));
      await send();
    }
    const settled = await Promise.all(outcomes);
    if (failed) return undefined;
    const answers: Array<{ value: unknown } | undefined> = [];
    for (const [i, outcome] of settled.entries()) {
      const { wrote, aside } = states[i]!;
      if (wrote && (aside || 'failed' in outcome)) return undefined;
      answers.push(aside ? undefined : { value: outcome.value });
    }
    return answers;
  }

  const writes = createGroupCommit<Job, unknown>(
    (jobs) =>
      db.transaction(async (tx) => {
        let together: Array<{ value: unknown } | undefined> | undefined;
        if (jobs.length > 1) {
          await tx.query(q.SAVEPOINT_TOGETHER);
          together = await runTogether(tx, jobs);
          if (together === undefined) await tx.query(q.ROLLBACK_TO_TOGETHER);
        }
        const results: unknown[] = [];
        let first = true;
        for (const [i, job] of jobs.entries()) {
          const outcome = together?.[i];
          if (outcome !== undefined) results.push(outcome.value);
          else {
            results.push(await runJob(tx, job, first));
            first = false;
          }
        }
        return results;
      }),
    // A PostgreSQL COMMIT returns once the commit is durable: nothing is left to wait for.
    async () => undefined,
    WRITE_TRANSACTIONS,
  );

  const listeners = new Set<(change: Omit<LinkChange, 'seq'>) => void>();

  return {
    linkById: async (id) => toLink((await db.query<LinkRow>(q.LINK_BY_ID, [id])).rows[0]),
    linkByAddress: async (domain, code) => toLink((await db.query<LinkRow>(q.LINK_BY_ADDRESS, [code, domain])).rows[0]),

    async targetByAddress(domain, code) {
      const row = (await db.query<TargetRow>(q.TARGET_BY_ADDRESS, [code, domain])).rows[0];
      return row && toTarget(row, log);
    },

    crawlableLinks: async (domain) => (await db.query<CrawlableLink>(q.CRAWLABLE_LINKS, [domain])).rows,

    async listLinks(query: LinkQuery) {
      const { text, values } = q.listLinks(listAsk(query));
      return (await db.query<LinkRow>(text, values)).rows.map((row) => toLink(row)!);
    },

    async countLinks(query: LinkQuery) {
      const { text, values } = q.countLinks(listAsk(query));
      return (await db.query<{ count: number }>(text, values)).rows[0]?.count ?? 0;
    },

    tagCounts: async (owner) => (await db.query<{ tag: string; count: number }>(q.TAG_COUNTS, [owner ?? null])).rows,

    claimVisit: async (id) => (await db.query(q.CLAIM_VISIT, [id])).rowCount === 1,

    hasVisitsLeft: async (id) => (await db.query<{ left: boolean }>(q.HAS_VISITS_LEFT, [id])).rows[0]?.left === true,

    linkRules: async (id) => (await db.query<{ rules: string | null }>(q.LINK_RULES, [id])).rows[0]?.rules ?? null,

    linkPages: async (id) => (await db.query<{ pages: string | null }>(q.LINK_PAGES, [id])).rows[0]?.pages ?? null,

    formAnswers: async (linkId, before, limit) => ({
      answers: (await db.query<StoredFormAnswer>(q.FORM_ANSWERS_PAGE, [linkId, before, limit])).rows,
      total: (await db.query<{ count: number }>(q.FORM_ANSWER_COUNT, [linkId])).rows[0]?.count ?? 0,
    }),

    liveUrlsAfter: async (after, limit) => (await db.query<LinkUrlRow>(q.LIVE_LINK_URLS_PAGE, [after, limit])).rows.map(toLinkUrl),

    blockedCount: async () => (await db.query<{ count: number }>(q.BLOCKED_COUNT)).rows[0]?.count ?? 0,

    pendingCount: async () => (await db.query<{ count: number }>(q.PENDING_COUNT)).rows[0]?.count ?? 0,

    async *allLinks() {
      for (let after = 0; ;) {
        const { rows } = await db.query<LinkRow>(q.ALL_LINKS_PAGE, [after, PAGE]);
        for (const row of rows) yield toLink(row)!;
        if (rows.length < PAGE) return;
        after = rows.at(-1)!.id;
      }
    },

    write: <T>(work: (tx: LinkWriter) => Promise<T>) => writes.run(work) as Promise<T>,

    lastChange: async () => (await db.query<{ seq: number }>(q.LAST_CHANGE)).rows[0]?.seq ?? 0,

    changesAfter: async (seq) => (await db.query<LinkChange>(q.CHANGES_AFTER, [seq])).rows,

    forgetChangesUpTo: async (seq) => void (await db.query(q.FORGET_CHANGES_BEFORE, [seq])),

    onChange(listener) {
      if (listeners.size === 0) {
        db.listen(q.LISTEN_LINK_CHANGES, (payload) => {
          const change = parseChange(payload);
          if (change) for (const l of listeners) l(change);
        });
      }
      listeners.add(listener);
    },

    async idle() {
      await writes.idle();
    },
  };
}

/**
 * Runs UPDATE_LINK; a move onto an address another link took since it was checked (by another node's write
 * committed meanwhile: the unique index decides) rejects with AppError('conflict').
 */
async function updateOrRefuseMove(tx: Querier, params: unknown[], link: Link): Promise<{ rowCount: number | null }> {
  try {
    return await tx.query(q.UPDATE_LINK, params);
  } catch (err) {
    if ((err as { code?: unknown }).code === '23505' && (err as { constraint?: unknown }).constraint === 'links_by_address')
      throw movedOntoTaken(link);
    throw err;
  }
}

function movedOntoTaken(link: Link): AppError {
  return new AppError('conflict', `the code "${link.code}" is already taken on the domain it would move to`, 'domain');
}

/**
 * A notification of the change triggers (queries.ts, LINK_CHANGES_CHANNEL): "linkId domain code", or
 * "- domain -" for a domain. Undefined for anything else, which is ignored: the change log still has it.
 */
export function parseChange(payload: string): Omit<LinkChange, 'seq'> | undefined {
  const match = /^(?:(\d+) (\d+) (\S+)|- (\d+) -)$/.exec(payload);
  if (!match) return undefined;
  if (match[4] !== undefined) return { linkId: null, domain: Number(match[4]), code: null };
  return { linkId: Number(match[1]), domain: Number(match[2]), code: match[3]! };
}

/** The option columns in UPDATE_LINK's order, from $4: title to enabled. */
function optionParams(o: LinkOptions & { passwordHash: string | null }): unknown[] {
  return [
    o.title,
    o.note,
    o.expiresAt?.getTime() ?? null,
    o.maxVisits,
    o.passwordHash,
    o.redirectStatus,
    o.forwardQuery === null ? null : o.forwardQuery ? 1 : 0,
    o.enabled ? 1 : 0,
  ];
}

/** INSERT_LINK's parameters (and a row of INSERT_LINKS'), for `link` with the id `id`. */
function insertParams(link: NewLink, id: number): unknown[] {
  const { creatorId, createdVia, createdKey, createdClient } = creatorColumns(link.createdBy);
  return [id, ...newLinkParams(link, link.urlHash), creatorId, createdVia, createdKey, createdClient, ...laterOptionParams(link)];
}

/** What a job's writer throws, in a batch's jobs run together, when the job is to run alone instead. */
class RunAlone extends Error {}

/** The options whose columns came after the statements' first ones, which each statement takes last: the start time and crawlable. */
function laterOptionParams(o: Pick<LinkOptions, 'startsAt' | 'crawlable'>): unknown[] {
  return [o.startsAt?.getTime() ?? null, o.crawlable ? 1 : 0];
}

/** The columns of a new link after its id, in INSERT_LINK's order: domain to enabled, then the owner and its review. */
function newLinkParams(link: Omit<NewLink, 'urlHash' | 'createdBy'>, urlHash: Buffer | null): unknown[] {
  return [
    link.domain,
    link.code,
    link.url,
    urlHash,
    link.isAlias ? 1 : 0,
    link.createdAt.getTime(),
    ...optionParams(link),
    link.ownerId,
    link.review,
  ];
}
