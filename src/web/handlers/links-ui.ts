import type { Context } from 'koa';
import { activityRow, HISTORY_SIZE } from './activity-ui.ts';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import { sendSeeOther } from '../../http/respond.ts';
import { defaultOrder, goneMessage, LIST_STATES, type Link, type LinkAddress, type ListSort } from '../../links/link.ts';
import { domainOf, domainQuery } from '../domain-param.ts';
import { LIST_QUERY, PAGE_SIZE } from '../../links/list-query.ts';
import { isAdmin } from '../../auth/actor.ts';
import { actorOf, readForm } from '../session.ts';
import { showPage } from './pages.ts';
import { visitTrend } from './stats-pages.ts';
import { bulkNotice, listPath } from './links-bulk.ts';
import { BULK_MOST } from '../../links/bulk.ts';
import { answerText, FORM_ANSWER_FIELDS } from '../../transfer/form-answer-format.ts';
import {
  formError,
  formFailure,
  formValues,
  LINK_FIELDS,
  linkInput,
  linkValues,
  shownFields,
  textOf,
  utmOpen,
  type FormError,
  type FormValues,
} from '../forms.ts';
import { domainOptions, linkDetails, linkRow, redirectDefaults } from '../presenters.ts';
import {
  changedRules,
  EMPTY_RULE_FORM,
  RULE_FIELDS,
  ruleFormError,
  ruleFormOptions,
  ruleLine,
  ruleOfForm,
  ruleSplitRows,
} from '../rule-form.ts';
import { splitFieldNames, splitFormError, splitOfForm, splitRows, VARIANT_ROWS, variantValues } from '../split-form.ts';
import { PAGE_FIELDS, pageFormError, pageFormOptions, pagesOfForm, pageValues } from '../page-settings-form.ts';

/** The form answers the link page lists; their own page has every one. */
const LATEST_ANSWERS = 5;

const EDIT_FIELDS = LINK_FIELDS.filter((f) => f !== 'alias');
/** The edit form's A/B split rows (variant_url1, variant_weight1, variant_paused1, …). */
const VARIANT_FIELDS = splitFieldNames('variant', VARIANT_ROWS, true);
/** What the link page says after a change, by the flag in its query string. */
const NOTICES = ['created', 'existing', 'saved', 'enabled', 'disabled'] as const;

/** The link pages: the list, a link's page with its edit form, turning it off and on, deleting it. */
export function linksUiHandlers(web: WebServices) {
  const codeOf = (ctx: Context): string => ctx.params['code'] ?? '';
  /** The link's page with `flag` (saved, enabled, …) in its query, beside its `domain` off the default domain. */
  const pageOf = (link: LinkAddress, flag: string): string => {
    const domain = domainQuery(link.domain, web.registry);
    return `/links/${encodeURIComponent(link.code)}?${domain === '' ? flag : `${domain}&${flag}`}`;
  };
  /** `?domain=HOST` for a link off the default domain, or nothing. */
  const domainSuffix = (domain: number): string => {
    const query = domainQuery(domain, web.registry);
    return query === '' ? '' : `?${query}`;
  };

  /** The edit form's values of `link` as stored: its fields, its split's rows and its owner. */
  const storedValues = (link: Link): FormValues => ({
    ...linkValues(link, web.registry.hostOf(link.domain)),
    ...variantValues(link.split),
    owner: web.ownerName(link.ownerId) ?? '',
  });

  /** The link page with the edit form's values and error, and the rule editor's (`rules`: its form as typed and its error). */
  async function showLinkPage(
    ctx: Context,
    status: number,
    link: Link,
    form: FormValues,
    error: FormError | null,
    rules: { form: FormValues; error: FormError | null } = { form: EMPTY_RULE_FORM, error: null },
    pages: { form: FormValues; error: FormError | null } = { form: pageValues(link.pages), error: null },
  ): Promise<void> {
    const notice = NOTICES.find((flag) => flag in ctx.query) ?? null;
    const actor = actorOf(ctx);
    const ruleList = link.deletedAt ? [] : await web.links.rulesOf(actor, link.code, link.domain);
    // An admin may hand the link to another user, once there is one.
    const users = isAdmin(actor) ? await web.users.listUsers(actor) : [];
    const history = await web.audit.list({ subject: { kind: 'link', id: link.id }, limit: HISTORY_SIZE });
    // The newest form answers are listed here; their own page has them all, paged, and the CSV.
    const answers =
      link.pages.form === null && !link.deletedAt
        ? null
        : await web.links.formAnswersOf(actor, link.code, link.domain, undefined, LATEST_ANSWERS);
    showPage(ctx, web, status, 'link', {
      trend: link.deletedAt ? null : await visitTrend(web, link),
      history: history.entries.map((entry) => activityRow(entry, web.registry)),
      title: `Link ${link.code}`,
      section: 'links',
      link: linkDetails(link, web),
      // Where the link may move: the domains the actor may use, and the one it is on.
      domains: web.registry.several() ? domainOptions(web, actor, link.domain) : null,
      owners:
        users.length > 1
          ? users.filter((u) => u.state === 'active' || u.id === link.ownerId).map((u) => ({ value: u.name, label: u.name }))
          : null,
      notice: error ? null : notice,
      form,
      error,
      // The link's own A/B split: its variants, and one empty row to add one (two for a link without a split).
      variants: splitRows(form, 'variant', { least: 2, extra: 1, most: VARIANT_ROWS }),
      utmOpen: utmOpen(form, error),
      defaults: redirectDefaults(web),
      reviewer: isAdmin(actor),
      rules: {
        lines: ruleList.map(ruleLine),
        path: `/links/${encodeURIComponent(link.code)}/rules${domainSuffix(link.domain)}`,
        form: rules.form,
        error: rules.error,
        options: ruleFormOptions(),
        splitRows: ruleSplitRows(rules.form),
      },
      pages: {
        path: `/links/${encodeURIComponent(link.code)}/pages${domainSuffix(link.domain)}`,
        answersPath: `/links/${encodeURIComponent(link.code)}/form-answers${domainSuffix(link.domain)}`,
        hasForm: link.pages.form !== null,
        answers:
          answers === null || answers.total === 0
            ? null
            : {
                total: answers.total,
                columns: FORM_ANSWER_FIELDS,
                rows: answers.answers.map((a) => ({
                  at: a.at.toISOString(),
                  values: FORM_ANSWER_FIELDS.map((c) => answerText(a.answers[c])),
                })),
                csvPath: `/links/${encodeURIComponent(link.code)}/form-answers.csv${domainSuffix(link.domain)}`,
              },
        form: pages.form,
        error: pages.error,
        options: pageFormOptions(),
      },
    });
  }

  return {
    /** The list: search, tag filter, sort, and paging by cursor with the filters kept. */
    async listLinks(ctx: Context): Promise<void> {
      const { domainHost, ownerName, ...listQuery } = LIST_QUERY.parse(ctx.query);
      const domain = domainHost === undefined ? undefined : web.registry.idOf(domainHost);
      const owner = ownerName === undefined ? undefined : await web.owners.idOf(ownerName);
      const { links, next, query } = await web.links.listPage(actorOf(ctx), { ...listQuery, domain, owner });
      const actor = actorOf(ctx);
      // A member's list is theirs alone: no owner filter, and no count of others' blocked links.
      const [tags, blockedCount, users, pending] = await Promise.all([
        web.links.tagCounts(actor),
        isAdmin(actor) ? web.links.blockedCount() : Promise.resolve(0),
        isAdmin(actor) ? web.users.listUsers(actor) : Promise.resolve([]),
        isAdmin(actor) ? web.review.pendingCount() : Promise.resolve(null),
      ]);
      const sort = query.sort ?? 'created';
      const order = query.order ?? defaultOrder(sort);
      const filters = {
        q: query.search ?? '',
        tags: query.tags ?? [],
        tagMode: query.tagMode ?? 'any',
        domain: domain === undefined ? '' : web.registry.hostOf(domain),
        owner: owner === undefined ? '' : (web.ownerName(owner) ?? ''),
        state: query.state ?? '',
        from: typeof ctx.query['from'] === 'string' ? ctx.query['from'] : '',
        to: typeof ctx.query['to'] === 'string' ? ctx.query['to'] : '',
        blocked: query.blocked ? 'true' : '',
        review: query.review ?? '',
        sort,
        order,
      };
      // The filters as the URL keeps them (defaults left out), so that a page, a sort or a bookmark keeps them all.
      const kept: Array<[string, string]> = [
        ['q', filters.q],
        ...filters.tags.map((tag): [string, string] => ['tag', tag]),
        ['tagMode', filters.tags.length > 1 && filters.tagMode === 'all' ? 'all' : ''],
        ['domain', filters.domain],
        ['owner', filters.owner],
        ['state', filters.state],
        ['from', filters.from],
        ['to', filters.to],
        ['blocked', filters.blocked],
        ['review', filters.review],
        ['limit', query.limit === PAGE_SIZE.default ? '' : String(query.limit)],
      ];
      const href = (extra: Record<string, string>, ordered = { sort, order }): string => {
        const params = new URLSearchParams(
          [
            ...kept,
            ['sort', ordered.sort === 'created' ? '' : ordered.sort] as [string, string],
            ['order', ordered.order === defaultOrder(ordered.sort) ? '' : ordered.order] as [string, string],
            ...Object.entries(extra),
          ].filter(([, v]) => v !== ''),
        );
        return params.size === 0 ? '/links' : `/links?${params}`;
      };
      // Each sortable column's link: its own order first, the other way round when it is the order already.
      const sortHref = (column: ListSort): string => {
        const next = column === sort ? (order === 'asc' ? 'desc' : 'asc') : defaultOrder(column);
        return href({}, { sort: column, order: next });
      };
      const sorting = Object.fromEntries(
        (['code', 'url', 'title', 'visits', 'created'] as const).map((column) => [
          column,
          { href: sortHref(column), current: column === sort ? (order === 'asc' ? 'ascending' : 'descending') : null },
        ]),
      );
      for (const tag of filters.tags) if (!tags.some((t) => t.tag === tag)) tags.push({ tag, count: 0 });
      showPage(ctx, web, 200, 'links', {
        title: 'Links',
        section: 'links',
        links: links.map((link) => linkRow(link, web)),
        filters,
        tags,
        sorting,
        states: LIST_STATES,
        filtered: kept.some(([name, value]) => value !== '' && name !== 'limit'),
        domains: web.registry.several() ? domainOptions(web) : null,
        owners: users.length > 1 ? users.map((u) => ({ value: u.name, label: `${u.name} (${u.links})` })) : null,
        nextHref: next ? href({ cursor: next }) : null,
        firstHref: typeof ctx.query['cursor'] === 'string' ? href({}) : null,
        deleted: typeof ctx.query['deleted'] === 'string' ? ctx.query['deleted'] : null,
        // The bulk form: back to this very list after a change, saying what was done.
        bulk: {
          back: listPath(ctx.url),
          notice: bulkNotice(ctx.query, {
            isHost: (host) => web.registry.idOfHost(host) !== undefined,
            hasTag: (tag) => tags.some((t) => t.tag === tag && t.count > 0),
          }),
          // "Select all on this page" without JavaScript: the page again, every row ticked.
          selectAll: ctx.query['select'] === 'all',
          selectAllHref: href({ ...(typeof ctx.query['cursor'] === 'string' ? { cursor: ctx.query['cursor'] } : {}), select: 'all' }),
          domains: web.registry.several() ? domainOptions(web, actor) : null,
          most: BULK_MOST,
        },
        // The blocked filter shows where there is a blocklist, or links it disabled before it was taken away.
        blocklist: web.config.blocklist !== '' || blockedCount > 0,
        blockedCount,
        // The review filter shows while links wait for review or may (a member sees their own, uncounted).
        review: web.config.reviewNewLinks !== 'off' || (pending ?? 0) > 0 || query.review !== undefined ? { pending } : null,
      });
    },

    async showLink(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(actorOf(ctx), codeOf(ctx), domainOf(ctx, web.registry));
      await showLinkPage(ctx, 200, link, storedValues(link), null);
    },

    /**
     * Saves every field of the edit form (a domain other than its own moves the link there); the redirect
     * follows at once. A refused edit shows the form again as typed.
     */
    async editLink(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const domain = domainOf(ctx, web.registry);
      const form = formValues(await readForm(ctx, web), [...EDIT_FIELDS, 'owner', ...VARIANT_FIELDS]);
      const split = splitOfForm(form, 'variant', VARIANT_ROWS);
      try {
        const input: Record<string, unknown> = linkInput(form, true);
        // The form names the link's own domain unless it moves it: only a move is an edit of the domain.
        if (input['domain'] !== undefined && web.registry.idOf(input['domain']) === domain) delete input['domain'];
        // Likewise its owner (an admin's form alone has the field): only another one hands it over.
        const current = await web.links.existingLink(actorOf(ctx), code, domain);
        if (form['owner'] && form['owner'] !== web.ownerName(current.ownerId)) input['owner'] = form['owner'];
        // Rows with a URL are the split; none removes the link's split (and leaves a link without one alone).
        if (split.variants.length > 0) input['split'] = split.variants;
        else if (current.split !== null) input['split'] = null;
        const edited = await web.links.editLink(actorOf(ctx), code, input, domain);
        sendSeeOther(ctx.res, pageOf(edited, 'saved'));
      } catch (err) {
        const error = formFailure(err);
        const link = await web.links.existingLink(actorOf(ctx), code, domain);
        await showLinkPage(
          ctx,
          STATUS[error.code],
          link,
          { ...form, password: '' },
          splitFormError(error, split, 'variant') ?? formError(error, [...shownFields(web, EDIT_FIELDS), 'owner']),
        );
      }
    },

    /**
     * The rule editor's buttons, one form post each (`op`: add, remove, up, down with the rule's `index`): the
     * list is read, changed and set again through setRules, then the page shows it (post-redirect-get). A
     * refused rule shows the page again with the message beside its field and the values as typed.
     */
    async changeRules(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const domain = domainOf(ctx, web.registry);
      const actor = actorOf(ctx);
      const body = await readForm(ctx, web);
      const form = formValues(body, RULE_FIELDS);
      const rules = await web.links.rulesOf(actor, code, domain);
      try {
        await web.links.setRules(
          actor,
          code,
          changedRules(rules, body, () => ruleOfForm(form)),
          domain,
        );
        sendSeeOther(ctx.res, `/links/${encodeURIComponent(code)}${domainSuffix(domain)}#rules`);
      } catch (err) {
        const error = formFailure(err);
        const link = await web.links.existingLink(actor, code, domain);
        await showLinkPage(ctx, STATUS[error.code], link, storedValues(link), null, {
          form: textOf(body, 'op') === 'add' ? form : EMPTY_RULE_FORM,
          error: ruleFormError(error, rules.length, form),
        });
      }
    },

    /** The pages before the redirect (notice, form, open in browser): saved, or the form again with its error. */
    async changePages(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const domain = domainOf(ctx, web.registry);
      const actor = actorOf(ctx);
      const form = formValues(await readForm(ctx, web), PAGE_FIELDS);
      try {
        await web.links.setPages(actor, code, pagesOfForm(form), domain);
        sendSeeOther(ctx.res, `/links/${encodeURIComponent(code)}${domainSuffix(domain)}#pages`);
      } catch (err) {
        const error = formFailure(err);
        const link = await web.links.existingLink(actor, code, domain);
        await showLinkPage(ctx, STATUS[error.code], link, storedValues(link), null, undefined, { form, error: pageFormError(error) });
      }
    },

    /** `enabled=true|false`: a disabled link answers 410 until enabled again. */
    async setLinkState(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const domain = domainOf(ctx, web.registry);
      const enabled = textOf(await readForm(ctx, web), 'enabled');
      if (enabled !== 'true' && enabled !== 'false') throw new AppError('invalid', 'enabled must be true or false', 'enabled');
      const edited = await web.links.editLink(actorOf(ctx), code, { enabled: enabled === 'true' }, domain);
      sendSeeOther(ctx.res, pageOf(edited, enabled === 'true' ? 'enabled' : 'disabled'));
    },

    /** The page that asks before deleting. */
    async confirmDelete(ctx: Context): Promise<void> {
      const link = await web.links.existingLink(actorOf(ctx), codeOf(ctx), domainOf(ctx, web.registry));
      if (link.deletedAt) throw new AppError('gone', goneMessage(link.code));
      showPage(ctx, web, 200, 'delete', { title: `Delete ${link.code}?`, section: 'links', link: linkRow(link, web) });
    },

    /** Deletes and goes back to the list; the code answers 410 from then on. */
    async deleteLink(ctx: Context): Promise<void> {
      const code = codeOf(ctx);
      const domain = domainOf(ctx, web.registry);
      await readForm(ctx, web);
      const { deleted } = await web.links.deleteLink(actorOf(ctx), code, domain);
      if (!deleted) throw new AppError('gone', `the link "${code}" was deleted already`);
      const kept = domainQuery(domain, web.registry);
      sendSeeOther(ctx.res, `/links?${kept === '' ? '' : `${kept}&`}deleted=${encodeURIComponent(code)}`);
    },
  };
}
