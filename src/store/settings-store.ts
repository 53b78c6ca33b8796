import type { Database } from 'better-sqlite3';
import * as q from './queries.ts';

export type SettingsStore = ReturnType<typeof createSettingsStore>;

/** Key/value settings that live in the database, such as the code key. */
export function createSettingsStore(db: Database) {
  const setting = db.prepare<[string], { value: string }>(q.SETTING);
  const insertIfMissing = db.prepare<[string, string]>(q.INSERT_SETTING_IF_MISSING);
  const ping = db.prepare<[], { ok: number }>(q.PING);

  return {
    /** Returns the stored value for `key`, storing `make()` first if there is none (first writer wins). */
    settingOrInit(key: string, make: () => string): string {
      const existing = setting.get(key)?.value;
      if (existing !== undefined) return existing;
      insertIfMissing.run(key, make());
      return setting.get(key)?.value ?? '';
    },

    /** True when the database answers a query. */
    isReachable(): boolean {
      return ping.get()?.ok === 1;
    },
  };
}
