import type { RequestListener } from 'node:http';
import type { Services } from '../app.ts';
import { createFirst } from './handlers/links-api.ts';
import { redirectFirst } from './handlers/redirect.ts';

/**
 * The two requests kurz's speed depends on, answered in front of Koa with Node's own request and response:
 * redirects (`GET|HEAD /CODE`) and creations (`POST /api/v1/links` with JSON). Each fast path takes only
 * what it answers exactly as its Koa route would (same service calls, status, headers and bytes, checked by
 * the tests); Koa gets everything else.
 */
export function fastPathsFirst(s: Services, koa: RequestListener, reserved: ReadonlySet<string>): RequestListener {
  const redirect = redirectFirst(s, reserved);
  const create = createFirst(s);
  return (req, res) => {
    if (!redirect(req, res) && !create(req, res)) koa(req, res);
  };
}
