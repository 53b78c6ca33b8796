import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { VERSION } from '../../src/core/version.ts';

test('VERSION is the version in package.json', (t) => {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  t.is(VERSION, pkg.version);
});
