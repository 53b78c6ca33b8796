import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { BULK_BODY_LIMIT, sizeText } from '../../http/body.ts';
import { sendRetryAfter } from '../../http/problems.ts';
import { takeCreations } from '../creation-limit.ts';
import { actorOf, readForm } from '../session.ts';
import { BATCH_MAX } from './links-api.ts';
import { showPage } from './pages.ts';
import { formError, formFailure, textOf, type FormError } from '../forms.ts';

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
  function showImport(ctx: Context, status: number, urls: string, error: FormError | null, results: LineResult[] | null): void {
    const count = (s: LineResult['status']) => results?.filter((r) => r.status === s).length ?? 0;
    const counts = { created: count('created'), existing: count('existing'), failed: count('error') };
    showPage(ctx, web, status, 'import', {
      title: 'Bulk shorten',
      section: 'import',
      urls,
      error,
      results,
      counts,
      max: BATCH_MAX,
      size: sizeText(BULK_BODY_LIMIT),
    });
  }

  return {
    showImport(ctx: Context): void {
      showImport(ctx, 200, '', null, null);
    },

    /**
     * Creates a link for every non-empty line, all at once (the group commit stores them together), and
     * shows one result per line. The lines that failed are put back in the text area to be fixed. The
     * lines count against the creation limit; over it, the form comes back as it was, with 429.
     */
    async importLinks(ctx: Context): Promise<void> {
      const text = textOf(await readForm(ctx, web, BULK_BODY_LIMIT), 'urls');
      const lines = text
        .split(/\r\n|\r|\n/)
        .map((url, i) => ({ line: i + 1, url: url.trim() }))
        .filter((l) => l.url !== '');
      const refuse = (message: string) =>
        showImport(ctx, STATUS.invalid, text, formError(new AppError('invalid', message, 'urls'), ['urls']), null);
      if (lines.length === 0) return refuse('urls must hold at least one URL, one per line');
      if (lines.length > BATCH_MAX) return refuse(`urls may hold at most ${BATCH_MAX} URLs, got ${lines.length}`);
      try {
        takeCreations(ctx, web, lines.length);
      } catch (err) {
        const limited = formFailure(err);
        sendRetryAfter(ctx.res, limited);
        return showImport(ctx, STATUS[limited.code], text, { field: 'urls', message: limited.message }, null);
      }
      const created = await web.creation.createEach(actorOf(ctx), lines, ({ url }) => ({ url }));
      const results = lines.map(({ line, url }, i): LineResult => {
        const result = created[i];
        if (result instanceof AppError || !result)
          return { line, url, status: 'error', reason: result?.message ?? null, code: null, shortUrl: null };
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
      showImport(ctx, 200, failed.join('\n'), null, results);
    },
  };
}
