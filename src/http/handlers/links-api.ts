import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'koa';
import typeis from 'type-is';
import type { Services } from '../../app.ts';
import { presentLink } from '../../links/present.ts';
import type { CreatedLink, CreateLinkInput } from '../../links/service.ts';
import { checkJsonObject, jsonBody, readJson } from '../body.ts';
import { asClientError, INTERNAL_ERROR } from '../errors.ts';
import { sendJson, surelyWantsJson, writeJson, writeProblem } from '../respond.ts';

export const LINKS_PATH = '/api/v1/links';

const CREATE_FIELDS: ReadonlySet<string> = new Set(['url', 'alias']);

function createInput(body: unknown): CreateLinkInput {
  const fields = checkJsonObject(body, CREATE_FIELDS);
  return { url: fields['url'], alias: fields['alias'] };
}

/** 201 with the new link's Location, or 200 with the earlier link of the same URL (dedupe). */
function createdAnswer(s: Services, { link, created }: CreatedLink) {
  return {
    status: created ? 201 : 200,
    location: created ? `${LINKS_PATH}/${link.code}` : undefined,
    body: presentLink(link, s.links.shortUrl(link.code)),
  };
}

/** /api/v1/links */
export function linksApiHandlers(s: Services) {
  return {
    async createLink(ctx: Context): Promise<void> {
      const { status, location, body } = createdAnswer(s, await s.creations.create(createInput(jsonBody(ctx))));
      if (location) ctx.set('Location', location);
      sendJson(ctx, status, body);
    },

    showLink(ctx: Context): void {
      const code = ctx.params['code'] ?? '';
      const link = s.links.existingLink(code);
      sendJson(ctx, 200, presentLink(link, s.links.shortUrl(link.code)));
    },
  };
}

/**
 * The creation's fast path, in front of Koa: `POST /api/v1/links` with an `application/json` body, from a
 * client that takes JSON errors, is answered here with Node's own request and response. Koa's context,
 * middleware chain, router and respond cost about 45% of a creation's CPU (one core, alternated: 6.1-8.5k
 * links/s through Koa, 9.2-9.7k here). The body parser, checks, service call, status, headers and bytes are
 * the Koa route's; everything else (other media types, browsers, a query string) goes to Koa. Returns false,
 * having touched nothing, when it does not take the request.
 */
export function createFirst(s: Services): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== LINKS_PATH || !surelyWantsJson(req.headers.accept) || typeis(req, ['json']) !== 'json') {
      return false;
    }
    readJson(req)
      .then((body) => s.creations.create(createInput(body)))
      .then((created) => {
        const { status, location, body } = createdAnswer(s, created);
        if (location) res.setHeader('Location', location);
        writeJson(res, status, body);
      })
      .catch((err: unknown) => {
        const problem = asClientError(err);
        if (!problem) s.log.error('request failed', { method: req.method, path: req.url, err });
        if (res.headersSent) res.destroy();
        else writeProblem(res, problem ?? INTERNAL_ERROR);
      });
    return true;
  };
}
