import type { SettingsStore } from '../ports.ts';
import type { Database } from './database.ts';
import * as q from './queries.ts';

/** Key/value settings that live in the database, such as the code key. */
export function createPostgresSettingsStore(db: Database): SettingsStore {
  const setting = async (key: string): Promise<string | undefined> => (await db.query<{ value: string }>(q.SETTING, [key])).rows[0]?.value;

  return {
    async settingOrInit(key, make) {
      const existing = await setting(key);
      if (existing !== undefined) return existing;
      // Nodes starting together may both get here: the first insert wins and every node reads it back.
      await db.query(q.INSERT_SETTING_IF_MISSING, [key, make()]);
      return (await setting(key)) ?? '';
    },

    setting,

    setSetting: async (key, value) => void (await db.query(q.SET_SETTING, [key, value])),
  };
}
