import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, asSentence } from '../../core/errors.ts';
import { send, sendSeeOther } from '../../http/respond.ts';
import { BULK_MOST, changeLinks, chosenLinks, type BulkChange } from '../../links/bulk.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import type { LinkAddress } from '../../links/link.ts';
import { parseTag } from '../../links/link-options.ts';
import { CODE } from '../../links/alias-rules.ts';
import { csvHeader, formatRecord } from '../../transfer/format.ts';
import { actorOf, readForm, safeReturnPath } from '../session.ts';
import { textOf } from '../forms.ts';
import { linkRow } from '../presenters.ts';
import { showPage } from './pages.ts';
import { MAX_SERIES } from '../charts.ts';

/** The bulk form's buttons (`action`), and what the list says after each (`done`). */
const ACTIONS = ['enable', 'disable', 'tag', 'untag', 'move', 'delete', 'export', 'compare'] as const;
type Action = (typeof ACTIONS)[number];
const DONE = { enable: 'enabled', disable: 'disabled', tag: 'tagged', untag: 'untagged', move: 'moved', delete: 'deleted' } as const;
/** The longest `link` value read: a host (253) and a code with room to spare. */
const ADDRESS_MOST = 400;

/**
 * POST /links: the list's form, its checked rows (`link`: each row's address) and one button
 * (`action`). A change goes through each link's own use case and back to the same list (post-redirect-get),
 * which says what was done; a deletion asks first (a page without JavaScript, a dialog with it); an export
 * answers with the CSV of the selection. Nothing is done to a selection with a link the actor cannot see.
 */
export function linksBulkHandlers(web: WebServices) {
  /** The `link` values as addresses. Throws AppError('invalid') for a value no row could have sent. */
  function addressesOf(value: unknown): LinkAddress[] {
    const values: unknown[] = Array.isArray(value) ? value : [];
    if (values.length > BULK_MOST)
      throw new AppError('invalid', `at most ${BULK_MOST} links at once (${values.length} are selected)`, 'link');
    return values.map((v) => {
      if (typeof v !== 'string' || v === '' || v.length > ADDRESS_MOST)
        throw new AppError('invalid', 'link must name a link of the list (its code, or HOST/CODE)', 'link');
      const slash = v.lastIndexOf('/');
      return slash === -1
        ? { domain: DEFAULT_DOMAIN, code: v }
        : { domain: web.registry.idOf(v.slice(0, slash), 'link'), code: v.slice(slash + 1) };
    });
  }

  /** What the chosen button asks for, its field checked. Throws AppError('invalid') naming the field. */
  function changeOf(ctx: Context, action: Exclude<Action, 'export' | 'compare'>, body: Record<string, unknown>): BulkChange {
    if (action === 'tag' || action === 'untag') return { kind: action, tag: parseTag('tag', body['tag']) };
    if (action === 'move') {
      const id = web.registry.idOf(textOf(body, 'domain'));
      web.registry.refuseClosed(actorOf(ctx), id);
      return { kind: 'move', host: web.registry.hostOf(id) };
    }
    return { kind: action };
  }

  return {
    async changeLinks(ctx: Context): Promise<void> {
      const body = await readForm(ctx, web, undefined, ['link']);
      const action = textOf(body, 'action') as Action;
      if (!ACTIONS.includes(action))
        throw new AppError('invalid', `action must be one of ${ACTIONS.join(', ')}; pick one of the buttons`, 'action');
      const back = listPath(body['back']);
      const actor = actorOf(ctx);
      const change = action === 'export' || action === 'compare' ? null : changeOf(ctx, action, body);
      const chosen = await chosenLinks(web.links, actor, addressesOf(body['link']));
      if (action === 'compare') {
        // The comparison page takes the links as codes, HOST/CODE off the default domain.
        if (chosen.length < 2 || chosen.length > MAX_SERIES)
          throw new AppError('invalid', `compare takes two to ${MAX_SERIES} links; ${count(chosen.length)} selected`, 'link');
        const codes = chosen.map((link): [string, string] => [
          'code',
          link.domain === DEFAULT_DOMAIN ? link.code : `${web.registry.hostOf(link.domain)}/${link.code}`,
        ]);
        sendSeeOther(ctx.res, `/stats/compare?${new URLSearchParams(codes)}`);
        return;
      }
      if (change === null) {
        const lines = [csvHeader('without-hashes')];
        for await (const link of web.transfer.exportChosen(chosen))
          lines.push(formatRecord(link, 'csv', 'without-hashes', web.transfer.fileDomain(link.domain)));
        const day = new Date(web.now()).toISOString().slice(0, 10);
        send(
          ctx.res,
          200,
          {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="kurz-links-${day}-${chosen.length}.csv"`,
            'Cache-Control': 'no-store',
          },
          lines.join(''),
        );
        return;
      }
      if (change.kind === 'delete' && textOf(body, 'confirmed') !== 'yes') {
        const live = chosen.filter((link) => link.deletedAt === null);
        showPage(ctx, web, 200, 'links-delete', {
          title: `Delete ${count(live.length)}?`,
          section: 'links',
          links: live.map((link) => linkRow(link, web)),
          gone: chosen.length - live.length,
          back,
        });
        return;
      }
      const { changed, failed } = await changeLinks(web.links, actor, chosen, change);
      const done = new URLSearchParams({ done: DONE[change.kind], links: String(changed.length) });
      if (change.kind === 'tag' || change.kind === 'untag') done.set('named', change.tag);
      if (change.kind === 'move') done.set('named', change.host);
      if (failed.length > 0) done.set('failed', failed.map((f) => f.link.code).join(' '));
      sendSeeOther(ctx.res, `${back}${back.includes('?') ? '&' : '?'}${done}`);
    },
  };
}

/**
 * What the list says after a bulk change, from the query its redirect gave (`done`, `links`, `named`,
 * `failed`; the sentences are the page's, the query only names): null without one.
 */
export function bulkNotice(
  query: Record<string, unknown>,
  known: { isHost: (host: string) => boolean; hasTag: (tag: string) => boolean },
): { text: string; failed: string[] } | null {
  const value = (name: string): string => (typeof query[name] === 'string' ? query[name] : '');
  const links = Number(value('links'));
  const done = value('done');
  const named = value('named');
  if (!Number.isSafeInteger(links) || links < 0 || value('links') === '') return null;
  // A crafted link makes the page say little else: a tag added must be one of the actor's, one taken off at least
  // spelt as a tag, a domain one of kurz's, each code a code.
  if (done === 'tagged' && !known.hasTag(named)) return null;
  if (done === 'untagged' && !isTag(named)) return null;
  if (done === 'moved' && !known.isHost(named)) return null;
  const failed = value('failed').split(' ').filter(Boolean);
  if (failed.length > BULK_MOST || !failed.every((code) => CODE.test(code))) return null;
  const texts: Record<string, string> = {
    enabled: `${count(links)} enabled.`,
    disabled: `${count(links)} disabled: their short URLs answer “410 Gone” until enabled again.`,
    tagged: `Tag “${named}” added to ${count(links)}.`,
    untagged: `Tag “${named}” removed from ${count(links)}.`,
    moved: `${count(links)} moved to ${named}.`,
    deleted: `${count(links)} deleted: their short URLs now answer “410 Gone”.`,
  };
  const text = texts[done];
  if (text === undefined) return null;
  return { text: asSentence(text), failed };
}

function isTag(text: string): boolean {
  try {
    return parseTag('tag', text) === text;
  } catch {
    return false;
  }
}

/** The list (with its filters) the form was sent from: `/links` or `/links?…`, anything else `/links`; without a previous outcome. */
export function listPath(value: unknown): string {
  const path = safeReturnPath(value);
  if (path !== '/links' && !path.startsWith('/links?')) return '/links';
  const url = new URL(path, 'http://kurz.invalid');
  for (const name of ['done', 'links', 'named', 'failed', 'deleted', 'select']) url.searchParams.delete(name);
  return url.search === '' ? '/links' : `/links${url.search}`;
}

/** "1 link", "3 links". */
export function count(links: number): string {
  return `${links} ${links === 1 ? 'link' : 'links'}`;
}
