import type { ServerResponse } from 'node:http';
import type { Context } from 'koa';
import type { Services } from '../../app.ts';
import { AppError } from '../../errors.ts';

const CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** Writes a bodiless redirect straight to the socket: nothing a browser would read is worth the bytes. */
export function writeRedirect(res: ServerResponse, status: number, url: string): void {
  res.writeHead(status, { Location: url, 'Cache-Control': 'private, max-age=90', 'Content-Length': '0' });
  res.end();
}

/** GET|HEAD /:code — the hot path: one cache lookup, the response, and a visit queued for later. */
export function redirectHandlers(s: Services) {
  const status = s.config.redirectStatus;
  return {
    redirect(ctx: Context): void {
      const code = ctx.params['code'] ?? '';
      const target = CODE.test(code) ? s.links.targetByCode(code) : undefined;
      if (!target) throw new AppError('not_found', `no link with code "${code}"`);
      if (target.deleted) throw new AppError('gone', `the link "${code}" was deleted; its code is not reused`);
      // HEAD comes from link checkers and unfurlers, not from people following the link.
      if (ctx.method === 'GET') s.visits.record(target.id, s.now());
      ctx.respond = false;
      writeRedirect(ctx.res, status, target.url);
    },
  };
}
