import { NO_EVENTS, VisitLog, type VisitEvents } from './visit-events.ts';

/**
 * How far a written chunk takes a recorder through the stream of events handed to it (every event ever
 * added, counted from 0): the events before `from` are written; of the pass [from, to) being written, the
 * first `written` in pass order (passOrder).
 */
export interface VisitReceipt {
  from: number;
  to: number;
  written: number;
}

/** The order a recorder writes a pass in: by link, and in stream order within a link. */
export function passOrder(linkIds: Float64Array): Uint32Array<ArrayBuffer> {
  return Uint32Array.from({ length: linkIds.length }, (_, i) => i).sort((a, b) => linkIds[a]! - linkIds[b]! || a - b);
}

/** The events before this position of the stream are all written. */
export function writtenThrough(receipt: VisitReceipt): number {
  return receipt.written === receipt.to - receipt.from ? receipt.to : receipt.from;
}

/**
 * The server's side of handing visits to a writer process: each flush sent is kept until the writer
 * confirms it written, so that when the writer dies, the events it had not written (by the receipt of its
 * last committed chunk, which it keeps in the database in the same transaction) go to the next writer, and
 * none that it had written goes twice. A pass spans whole flushes: the writer's recorder passes are
 * made of the flushes it was sent, in order.
 */
export class VisitHandover {
  /** Flushes sent and not confirmed, oldest first, each with where it starts in the stream. */
  #sent: Array<{ start: number; events: VisitEvents }> = [];
  /** Events sent in this stream. */
  #position = 0;
  #unconfirmed = 0;

  /** Events sent and not yet confirmed written. */
  get unconfirmed(): number {
    return this.#unconfirmed;
  }

  /** Records a flush as sent to the writer. */
  sent(events: VisitEvents): void {
    this.#sent.push({ start: this.#position, events });
    this.#position += events.length;
    this.#unconfirmed += events.length;
  }

  /** The writer confirms every event before `position` written: those flushes need not be kept. */
  confirm(position: number): void {
    for (let first = this.#sent[0]; first && first.start + first.events.length <= position; first = this.#sent[0]) {
      this.#sent.shift();
      this.#unconfirmed -= first.events.length;
    }
  }

  /**
   * The writer is gone, its last commit's receipt `receipt` (undefined if it committed none): the events it
   * had not written, and a new stream starts at 0 for the next writer. Throws if the receipt splits a flush,
   * which a writer never does.
   */
  unwritten(receipt: VisitReceipt | undefined): VisitEvents {
    const { from, to, written } = receipt ?? { from: 0, to: 0, written: 0 };
    const pass = new VisitLog();
    const after = new VisitLog();
    for (const { start, events } of this.#sent) {
      const end = start + events.length;
      if (end <= from) continue;
      if (start < from || (start < to && end > to)) throw new Error(`a receipt [${from}, ${to}) splits the flush [${start}, ${end})`);
      (start < to ? pass : after).append(events);
    }
    const left = new VisitLog();
    if (pass.length > 0) {
      const events = pass.take();
      const order = passOrder(events.linkIds);
      for (let k = written; k < order.length; k++) left.copy(events, order[k]!);
    }
    if (after.length > 0) left.append(after.take());
    this.#sent = [];
    this.#position = 0;
    this.#unconfirmed = 0;
    return left.length === 0 ? NO_EVENTS : left.take();
  }
}
