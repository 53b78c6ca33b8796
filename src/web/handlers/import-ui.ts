import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { BULK_BODY_LIMIT, sizeText } from '../../http/body.ts';
import { sendRetryAfter } from '../../http/problems.ts';
import { takeCreations } from '../creation-limit.ts';
import { actorOf, readForm } from '../session.ts';
import { BATCH_MAX } from './links-api.ts';
import { showPage } from './pages.ts';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import {
  BATCH_FIELDS,
  batchInput,
  formError,
  formFailure,
  formValues,
  shownFields,
  textOf,
  type FormError,
  type FormValues,
} from '../forms.ts';
import { parseOptions } from '../../links/link-options.ts';
import { defuse } from '../../transfer/format.ts';
import { domainOptions } from '../presenters.ts';

/** One line of a bulk submission and what became of it. */
interface LineResult {
  line: number;
  url: string;
  status: 'created' | 'existing' | 'error';
  reason: string | null;
  code: string | null;
  shortUrl: string | null;
}

/** /import: many links at once, one URL per line. */
export function importUiHandlers(web: WebServices) {
  function showImport(
    ctx: Context,
    status: number,
    urls: string,
    batch: FormValues,
    error: FormError | null,
    results: LineResult[] | null,
  ): void {
    const count = (s: LineResult['status']) => results?.filter((r) => r.status === s).length ?? 0;
    const counts = { created: count('created'), existing: count('existing'), failed: count('error') };
    const shortUrls = results?.flatMap((r) => (r.shortUrl ? [r.shortUrl] : [])) ?? [];
    showPage(ctx, web, status, 'import', {
      title: 'Bulk shorten',
      section: 'import',
      urls,
      form: batch,
      error,
      results,
      counts,
      shortUrls: shortUrls.join('\n'),
      csv: results ? { href: `data:text/csv;charset=utf-8,${encodeURIComponent(resultsCsv(results))}`, name: csvName(new Date()) } : null,
      domains: web.registry.several() ? domainOptions(web, actorOf(ctx)) : null,
      max: BATCH_MAX,
      size: sizeText(BULK_BODY_LIMIT),
    });
  }

  return {
    showImport(ctx: Context): void {
      showImport(ctx, 200, '', {}, null, null);
    },

    /**
     * Creates a link for every non-empty line, all at once (the group commit stores them together), each
     * with the batch's tags, domain and expiry, and shows one result per line. The lines that failed are
     * put back in the text area to be fixed. The lines count against the creation limit; over it, the
     * form comes back as it was, with 429.
     */
    async importLinks(ctx: Context): Promise<void> {
      const form = await readForm(ctx, web, BULK_BODY_LIMIT);
      const text = textOf(form, 'urls');
      const batch = formValues(form, BATCH_FIELDS);
      const lines = text
        .split(/\r\n|\r|\n/)
        .map((url, i) => ({ line: i + 1, url: url.trim() }))
        .filter((l) => l.url !== '');
      const refuse = (error: AppError) => {
        const failure = formFailure(error);
        sendRetryAfter(ctx.res, failure);
        showImport(ctx, STATUS[failure.code], text, batch, formError(failure, shownFields(web, ['urls', ...BATCH_FIELDS])), null);
      };
      if (lines.length === 0) return refuse(new AppError('invalid', 'urls must hold at least one URL, one per line', 'urls'));
      if (lines.length > BATCH_MAX)
        return refuse(new AppError('invalid', `urls may hold at most ${BATCH_MAX} URLs, got ${lines.length}`, 'urls'));
      let shared: Record<string, unknown>;
      try {
        // The batch's own options are checked once, beside their fields, rather than failing every line alike.
        shared = batchInput(batch);
        parseOptions(shared, Date.now());
        web.registry.idOf(shared['domain']);
        takeCreations(ctx, web, lines.length);
      } catch (err) {
        return refuse(err as AppError);
      }
      const created = await web.creation.createEach(actorOf(ctx), lines, ({ url }) => ({ ...shared, url }));
      const results = lines.map(({ line, url }, i): LineResult => {
        const result = created[i];
        if (result instanceof AppError || !result)
          return { line, url, status: 'error', reason: result ? formError(result, []).message : null, code: null, shortUrl: null };
        const { link } = result;
        return {
          line,
          url,
          status: result.created ? 'created' : 'existing',
          reason: null,
          code: link.code,
          shortUrl: web.shortUrl(link),
        };
      });
      const failed = results.filter((r) => r.status === 'error').map((r) => r.url);
      showImport(ctx, 200, failed.join('\n'), batch, null, results);
    },
  };
}

/** The results as the page shows them, one CSV line each; cells are safe to open in a spreadsheet. */
function resultsCsv(results: readonly LineResult[]): string {
  return stringifyCsv([
    ['line', 'url', 'result', 'reason', 'short_url'],
    ...results.map((r) => [String(r.line), defuse(r.url), r.status, defuse(r.reason ?? ''), r.shortUrl ?? '']),
  ]);
}

/** kurz-bulk-2026-11-27T1930Z.csv: the time of the batch, in UTC. */
function csvName(at: Date): string {
  return `kurz-bulk-${at.toISOString().slice(0, 16).replace(':', '')}Z.csv`;
}
