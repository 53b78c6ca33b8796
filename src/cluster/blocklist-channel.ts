import { isRecord, type Channel } from './channel.ts';

/** Primary to its workers after the blocklist files changed: read them again, then say so. */
export interface ReloadBlocklist {
  reload: true;
}

export const reloadBlocklist: Channel<ReloadBlocklist> = {
  name: 'blocklist',
  parse: (body) => (isRecord(body) && body['reload'] === true ? { reload: true } : undefined),
};

/** Worker to primary: the blocklist is read again, as asked. */
export interface BlocklistReloaded {
  reloaded: true;
}

export const blocklistReloaded: Channel<BlocklistReloaded> = {
  name: 'blocklist reloaded',
  parse: (body) => (isRecord(body) && body['reloaded'] === true ? { reloaded: true } : undefined),
};
