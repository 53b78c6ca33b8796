import test from 'ava';
import { invocation, type Started } from '../../src/core/invocation.ts';

const NODE: Started = { argv0: 'node', script: '/srv/kurz/build/kurz.cjs', cwd: '/srv/kurz', executable: false, container: false };

test('the bundle started by Node is named from the folder kurz started in', (t) => {
  t.is(invocation(NODE), 'node build/kurz.cjs');
  t.is(invocation({ ...NODE, argv0: '/usr/local/bin/node' }), 'node build/kurz.cjs');
  t.is(invocation({ ...NODE, cwd: '/srv/kurz/build' }), 'node kurz.cjs');
  t.is(invocation({ ...NODE, cwd: '/home/ann' }), 'node /srv/kurz/build/kurz.cjs', 'a script elsewhere: its full path');
  t.is(invocation({ ...NODE, script: '/srv/kurz/src/main.ts' }), 'node src/main.ts', 'the sources');
  t.is(invocation({ ...NODE, script: '/srv/kurz/node_modules/ava/lib/worker/base.js' }), 'kurz', 'something else that started the server');
});

test('the executable is named as it was typed: from the PATH, or by its path', (t) => {
  const exe = { ...NODE, executable: true, script: '/usr/local/bin/kurz' };
  t.is(invocation({ ...exe, argv0: 'kurz' }), 'kurz');
  t.is(invocation({ ...exe, argv0: 'dist/kurz' }), 'dist/kurz');
  t.is(invocation({ ...exe, argv0: './kurz-linux-arm64' }), './kurz-linux-arm64');
});

test('the executable in a container runs through the container; a bundle there is named as anywhere', (t) => {
  t.is(invocation({ ...NODE, executable: true, argv0: 'kurz', container: true }), 'docker exec CONTAINER kurz');
  t.is(invocation({ ...NODE, container: true }), 'node build/kurz.cjs');
});
