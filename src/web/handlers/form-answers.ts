import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { send, sendSeeOther } from '../../http/respond.ts';
import { answerText, FORM_ANSWER_FIELDS as FIELDS, formAnswerCsvHeader, formAnswerCsvLine } from '../../transfer/form-answer-format.ts';
import { domainOf, domainQuery } from '../domain-param.ts';
import { actorOf, readForm } from '../session.ts';
import { showPage } from './pages.ts';

/** Answers a page of the link's form answers lists. */
const ANSWERS_PAGE = 50;

/**
 * A link's form answers (the pages before the redirect): listed on their page (newest first, paged by id),
 * exported as CSV (the page's link and `GET /api/v1/links/CODE/form-answers`; cells a spreadsheet would run as
 * a formula are defused as every kurz export's), and deleted all at once by their owner.
 */
export function formAnswersHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';

  return {
    async showFormAnswers(ctx: Context): Promise<void> {
      const before = Number(ctx.query['before']);
      const domain = domainOf(ctx, web.registry);
      const page = await web.links.formAnswersOf(
        actorOf(ctx),
        codeOf(ctx),
        domain,
        Number.isSafeInteger(before) && before > 0 ? before : undefined,
        ANSWERS_PAGE,
      );
      const query = domainQuery(page.link.domain, web.registry);
      const last = page.answers.at(-1);
      const path = `/links/${encodeURIComponent(page.link.code)}/form-answers`;
      showPage(ctx, web, 200, 'form-answers', {
        title: `Form answers of ${page.link.code}`,
        section: 'links',
        code: page.link.code,
        linkPath: `/links/${encodeURIComponent(page.link.code)}${query === '' ? '' : `?${query}`}`,
        csvPath: `${path}.csv${query === '' ? '' : `?${query}`}`,
        deletePath: `${path}/delete${query === '' ? '' : `?${query}`}`,
        total: page.total,
        deleted: 'deleted' in ctx.query,
        answers: page.answers.map((a) => ({ at: a.at.toISOString(), values: FIELDS.map((c) => answerText(a.answers[c])) })),
        columns: FIELDS,
        next:
          last !== undefined && page.answers.length === ANSWERS_PAGE
            ? `${path}?${new URLSearchParams({ ...(query === '' ? {} : Object.fromEntries(new URLSearchParams(query))), before: String(last.id) })}`
            : null,
      });
    },

    /** Every answer as CSV, newest first. */
    async exportFormAnswers(ctx: Context): Promise<void> {
      const domain = domainOf(ctx, web.registry);
      const lines = [formAnswerCsvHeader()];
      let before: number | undefined;
      for (;;) {
        const page = await web.links.formAnswersOf(actorOf(ctx), codeOf(ctx), domain, before, 500);
        for (const a of page.answers) lines.push(formAnswerCsvLine(a.at, a.answers));
        if (page.answers.length < 500) break;
        before = page.answers.at(-1)!.id;
      }
      send(
        ctx.res,
        200,
        {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="kurz-form-answers-${codeOf(ctx)}.csv"`,
          'Cache-Control': 'no-store',
        },
        lines.join(''),
      );
    },

    /** Deletes every answer (a form post with its CSRF token), then back to the answers' page. */
    async deleteFormAnswers(ctx: Context): Promise<void> {
      await readForm(ctx, web);
      const domain = domainOf(ctx, web.registry);
      await web.links.deleteFormAnswers(actorOf(ctx), codeOf(ctx), domain);
      const query = domainQuery(domain, web.registry);
      sendSeeOther(ctx.res, `/links/${encodeURIComponent(codeOf(ctx))}/form-answers?${query === '' ? 'deleted' : `${query}&deleted`}`);
    },
  };
}
