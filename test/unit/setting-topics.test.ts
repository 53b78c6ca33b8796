import test from 'ava';
import { OPTIONS } from '../../src/config.ts';
import { SETTING_TOPICS } from '../../src/web/handlers/settings-ui.ts';

test('every option is in exactly one topic of the settings page, and nothing else is', (t) => {
  const listed = SETTING_TOPICS.flatMap((topic) => topic.options);
  t.deepEqual([...listed].sort(), OPTIONS.map((o) => o.name).sort());
  t.is(new Set(listed).size, listed.length);
});
