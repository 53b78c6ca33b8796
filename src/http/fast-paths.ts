import type { RequestListener } from 'node:http';
import type { Services } from '../app.ts';
import { createFirst } from './handlers/links-api.ts';
import { redirectFirst } from './handlers/redirect.ts';

/**
 * The two requests kurz's speed depends on, answered in front of Koa with Node's own request and response:
 * redirects (`GET|HEAD /CODE`) and creations (`POST /api/v1/links` with JSON). Each fast path takes only
 * what it answers exactly as its Koa route would (same service calls, status, headers and bytes, checked by
 * the tests); Koa gets everything else, and whatever a fast path throws on.
 */
export function fastPathsFirst(s: Services, koa: RequestListener, reserved: ReadonlySet<string>): RequestListener {
  const redirect = redirectFirst(s, reserved);
  const create = createFirst(s);
  return (req, res) => {
    let answered = false;
    try {
      answered = redirect(req, res) || create(req, res);
    } catch (err) {
      // Thrown before anything was written or counted: Koa's route meets the same failure and answers it
      // properly (a logged 500, in the client's format) instead of the exception ending the process.
      s.log.error('the fast path failed; Koa answers instead', { method: req.method, path: req.url, err });
    }
    if (!answered) koa(req, res);
  };
}
