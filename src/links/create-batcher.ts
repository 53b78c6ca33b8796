import { AppError } from '../errors.ts';
import type { CreatedLink, CreateLinkInput } from './service.ts';

/** Most creations written in one transaction; more wait for the next turn of the event loop. */
const MAX_BATCH = 1000;

interface Waiting {
  input: CreateLinkInput;
  resolve: (created: CreatedLink) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for concurrent requests: creations arriving in the same turn of the event loop are written
 * by `createLinks` in one transaction, so many links share one disk sync. The promise of each resolves only
 * after that transaction committed, so a 201 still means the link is durably stored.
 */
export function createBatcher(createLinks: (inputs: CreateLinkInput[]) => Array<CreatedLink | AppError>) {
  const waiting: Waiting[] = [];

  function flush(): void {
    const batch = waiting.splice(0, MAX_BATCH);
    if (waiting.length > 0) setImmediate(flush);
    let results: Array<CreatedLink | AppError>;
    try {
      results = createLinks(batch.map((w) => w.input));
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (result instanceof AppError) w.reject(result);
      else if (result) w.resolve(result);
    });
  }

  return function createSoon(input: CreateLinkInput): Promise<CreatedLink> {
    return new Promise((resolve, reject) => {
      if (waiting.push({ input, resolve, reject }) === 1) setImmediate(flush);
    });
  };
}
