import type { VisitEvents } from '../visits/visit-events.ts';
import type { VisitReceipt } from '../visits/visit-handover.ts';

/**
 * What a backend that writes visits in a process of its own offers that process's supervisor
 * (cluster/background-writer.ts): how the writer opens the database, the receipt a writer left (kept in the
 * database, in each chunk's transaction), and the server's own checkpoints, which stop while a writer makes
 * them (SQLite; PostgreSQL checkpoints by itself).
 */
export interface WriterHost {
  /** What the writer needs to open the database the same way (`kurz background` reads them like any command). */
  readonly flags: readonly string[];
  /** What the writer's environment has instead of the server's (undefined: unset): a secret goes there, never into `ps`. */
  readonly env?: NodeJS.ProcessEnv;
  /** The receipt of the last chunk the writer named `name` committed (undefined if none); removes it. */
  takeReceipt(name: string): Promise<VisitReceipt | undefined>;
  /** Whether the server's own commits checkpoint the WAL. */
  checkpointInline(on: boolean): void;
}

/** The running background writer, as the backend that started it uses it. */
export interface BackgroundWriter {
  /**
   * Hands a flush of visit events to the child; false once the server writes visits itself again. The
   * events are kept until the child has written them: if it dies, the next child gets what it had not.
   */
  offload(events: VisitEvents, giveBack: (events: VisitEvents) => void): boolean;
  /** Visits only counted, their detail dropped, because too many waited for the child (VisitBacklog). */
  readonly detailDropped: number;
  /** The fault the child's writes (visits, checkpoints) fail with, as it last reported; undefined when none. */
  readonly fault: string | undefined;
  /** Asks the child to write everything it was handed and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the background writer on `host`; the composition root passes it to the backend it opens. */
export type StartBackgroundWriter = (host: WriterHost) => BackgroundWriter;

/** What the writer's process does with its own connection to the database, besides recording visits. */
export interface WriterDatabase {
  /** Copies the WAL into the database file, if it can without waiting; a failure is its own to log. */
  checkpoint(): void;
  /** Closes the connection; `forgetReceipt` when no server will read the writer's receipt. */
  close(forgetReceipt: boolean): void | Promise<void>;
}
