import type { Database } from 'better-sqlite3';
import type { SettingsStore } from '../ports.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';

/** Key/value settings that live in the database, such as the code key. */
export function createSqliteSettingsStore(db: Database): SettingsStore {
  const setting = db.prepare<[string], { value: string }>(q.SETTING);
  const insertIfMissing = db.prepare<[string, string]>(q.INSERT_SETTING_IF_MISSING);
  const setSetting = db.prepare<[string, string]>(q.SET_SETTING);
  const ping = db.prepare<[], { ok: number }>(q.PING);

  return {
    async settingOrInit(key, make) {
      const existing = setting.get(key)?.value;
      if (existing !== undefined) return existing;
      insertIfMissing.run(key, make());
      return setting.get(key)?.value ?? '';
    },

    setting: async (key) => setting.get(key)?.value,

    setSetting: (key, value) => outsideTransaction(db, () => void setSetting.run(key, value)),

    async isReachable() {
      return ping.get()?.ok === 1;
    },
  };
}
