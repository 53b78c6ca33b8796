import test from 'ava';
import type { WebServices } from '../../src/context.ts';
import { RESERVED_PATHS } from '../../src/links/reserved-paths.ts';
import { createRouter } from '../../src/web/routes.ts';

test('every top-level path kurz serves is reserved, so no alias can shadow it', (t) => {
  const stub = { config: { redirectStatus: 302, metricsAllow: '', metricsKey: '' } } as unknown as WebServices;
  const router = createRouter(stub);
  const firstSegments = new Set(
    router.stack.map((layer) => String(layer.path).split('/')[1] ?? '').filter((s) => s !== '' && !s.startsWith(':')),
  );
  t.true(firstSegments.size >= 4);
  for (const segment of firstSegments) t.true(RESERVED_PATHS.has(segment.toLowerCase()), segment);
});
