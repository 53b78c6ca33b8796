import type { Database } from 'better-sqlite3';
import type { SettingsStore } from '../ports.ts';
import { outsideTransaction } from './outside-transaction.ts';
import * as q from './queries.ts';
import type { WriteHealth } from './write-health.ts';

/** Key/value settings that live in the database, such as the code key; writes report to `health`. */
export function createSqliteSettingsStore(db: Database, health: WriteHealth): SettingsStore {
  const setting = db.prepare<[string], { value: string }>(q.SETTING);
  const insertIfMissing = db.prepare<[string, string]>(q.INSERT_SETTING_IF_MISSING);
  const setSetting = db.prepare<[string, string]>(q.SET_SETTING);

  return {
    async settingOrInit(key, make) {
      const existing = setting.get(key)?.value;
      if (existing !== undefined) return existing;
      const value = make();
      await outsideTransaction(db, health, () => insertIfMissing.run(key, value));
      return setting.get(key)?.value ?? '';
    },

    setting: async (key) => setting.get(key)?.value,

    setSetting: (key, value) => outsideTransaction(db, health, () => void setSetting.run(key, value)),
  };
}
