import type { Actor } from '../auth/actor.ts';
import { STATUS, type ErrorCode } from '../core/errors.ts';
import type { CreatedLink, CreationWrite } from '../links/create.ts';
import { isCount, isRecord, type Channel } from './channel.ts';

/**
 * Worker to primary: a validated creation to store in the primary's group commit, numbered for its answer;
 * `malformed` when the number came with something that is no creation, which the primary answers as a
 * failure rather than drop (the worker's request would wait for ever).
 */
export type CreationToPrimary = { creation: number; write: CreationWrite } | { creation: number; malformed: true };

export const creationToPrimary: Channel<CreationToPrimary> = {
  name: 'creation',
  parse(body) {
    if (!isRecord(body) || !isCount(body['creation'])) return undefined;
    return isCreationWrite(body['write'])
      ? { creation: body['creation'], write: body['write'] }
      : { creation: body['creation'], malformed: true };
  },
};

/**
 * Primary to worker: the creation numbered `created` is stored (or answered with an earlier link), refused
 * with an AppError (its code, message, field and retryAfter), or failed in a way that is no client's.
 */
export type CreationFromPrimary =
  | { created: number; result: CreatedLink }
  | { refused: number; code: ErrorCode; message: string; field?: string; retryAfter?: number }
  | { failed: number; message: string };

export const creationFromPrimary: Channel<CreationFromPrimary> = {
  name: 'creation',
  parse(body) {
    if (!isRecord(body)) return undefined;
    if (isCount(body['created']) && isCreatedLink(body['result'])) return { created: body['created'], result: body['result'] };
    if (isCount(body['failed']) && typeof body['message'] === 'string') return { failed: body['failed'], message: body['message'] };
    const { refused, code, message, field, retryAfter } = body;
    if (!isCount(refused) || typeof code !== 'string' || !Object.hasOwn(STATUS, code) || typeof message !== 'string') return undefined;
    if (field !== undefined && typeof field !== 'string') return undefined;
    if (retryAfter !== undefined && !isCount(retryAfter)) return undefined;
    return { refused, code: code as ErrorCode, message, field, retryAfter };
  },
};

const isText = (value: unknown): value is string => typeof value === 'string';
const isTextOrNull = (value: unknown): boolean => value === null || isText(value);

/**
 * Whether `value` has a creation's shape. The worker validated what the client sent (links/create.ts); this
 * keeps a malformed message from reaching the write transaction, where it would throw or store nonsense.
 */
function isCreationWrite(value: unknown): value is CreationWrite {
  if (!isRecord(value)) return false;
  const { url, domain, options, passwordHash, review, createdBy, plain, lookUp, alias, length, split, pages } = value;
  return (
    isText(url) &&
    isCount(domain) &&
    isRecord(options) &&
    isTextOrNull(passwordHash) &&
    (review === null || review === 'pending') &&
    isActor(createdBy) &&
    typeof plain === 'boolean' &&
    typeof lookUp === 'boolean' &&
    isTextOrNull(alias) &&
    (length === null || isCount(length)) &&
    (split === null || (Array.isArray(split) && split.every((v) => isRecord(v) && isText(v['url']) && isCount(v['weight'])))) &&
    (pages === null || isRecord(pages))
  );
}

function isActor(value: unknown): value is Actor {
  return (
    isRecord(value) &&
    isCount(value['userId']) &&
    isText(value['name']) &&
    (value['role'] === 'admin' || value['role'] === 'member') &&
    isRecord(value['via']) &&
    isText(value['via']['kind'])
  );
}

function isCreatedLink(value: unknown): value is CreatedLink {
  if (!isRecord(value) || typeof value['created'] !== 'boolean') return false;
  const link = value['link'];
  return isRecord(link) && isCount(link['id']) && isText(link['code']) && isText(link['url']) && link['createdAt'] instanceof Date;
}
