import { anonymous, isAdmin, type Actor } from '../../auth/actor.ts';
import { defaultPublicUrl } from '../../config.ts';
import type { Context } from 'koa';
import type { WebServices } from '../../context.ts';
import { AppError, STATUS } from '../../core/errors.ts';
import type { Link } from '../../links/link.ts';
import { sendRetryAfter } from '../../http/problems.ts';
import { sendRedirect, sendSeeOther, UNCACHED } from '../../http/respond.ts';
import { DEFAULT_DOMAIN } from '../../domains/domain.ts';
import { takeCreations } from '../creation-limit.ts';
import { actorOf, readForm, sessionOf } from '../session.ts';
import { showPage } from './pages.ts';
import { shareBar } from '../charts.ts';
import {
  formError,
  formFailure,
  formUrl,
  formValues,
  LINK_FIELDS,
  linkInput,
  shownFields,
  textOf,
  utmOpen,
  type FormError,
  type FormValues,
} from '../forms.ts';
import { domainOptions, formatTime, linkRow, redirectDefaults } from '../presenters.ts';
import { domainQuery, madeLinkPath } from '../domain-param.ts';
import type { DomainTally } from '../../visits/visit.ts';
import { dashboardCsv, dashboardFigures, DASHBOARD_PERIODS, periodQuery, pickerOf } from './stats-pages.ts';
import { single } from '../../links/list-query.ts';
import { parsePagePeriod, type PagePeriod } from '../../visits/stats-query.ts';
import { UTM_FIELDS } from '../../links/utm.ts';

/** Links the dashboard lists under its form: a few, so that it fits a few phone screens (the list has them all). */
const LATEST = 5;
const PUBLIC_FIELDS = ['url', ...UTM_FIELDS, 'alias'] as const;
/** The option fields: an error in one opens the "more options" part of the form (the UTM part has its own). */
const NOT_OPTIONS: ReadonlySet<string> = new Set(['url', 'alias', 'domain', ...UTM_FIELDS]);
const OPTION_FIELDS: ReadonlySet<string> = new Set(LINK_FIELDS.filter((f) => !NOT_OPTIONS.has(f)));

/** What the dashboard says of the blocklist: its files and entries, and how many links it disabled; null without one. */
function blocklistSummary(web: WebServices, blocked: number) {
  const { files, loadedAt } = web.screening.status();
  if (files.length === 0 && blocked === 0) return null;
  return {
    blocked,
    entries: files.reduce((sum, f) => sum + f.hosts + f.domains + f.urls, 0),
    files: files.map((f) => f.name).join(', '),
    loaded: loadedAt ? formatTime(loadedAt) : null,
  };
}

/** Each domain's live links and the period's human visits, every domain listed (the default first). */
function domainFigures(web: WebServices, tallies: readonly DomainTally[]) {
  return web.registry.all().map((d) => {
    const tally = tallies.find((t) => t.domain === d.id);
    return { host: d.host, isDefault: d.id === DEFAULT_DOMAIN, links: tally?.links ?? 0, humans: tally?.humans ?? 0 };
  });
}

/**
 * GET / and POST /: for the logged-in admin the dashboard (the shorten form with every option, the last
 * 14 days' figures and the latest links); for anyone else, when anonymous shortening is on, the public form (URL, alias and the UTM builder only,
 * rate-limited per client, the result shown at once); otherwise the login. Both count against the
 * client's creation limit (creation-limit.ts).
 */
/**
 * The first-run card's steps, each done or not: shorten a link (never done while the card shows), make an API
 * key, change the generated password, and, for an admin, set the public URL short links are made with.
 */
async function firstSteps(web: WebServices, actor: Actor) {
  const [keys, generated] = await Promise.all([web.access.listKeys(actor.userId), web.access.mustChangePassword(actor.userId)]);
  const { publicUrl, host, port } = web.config;
  return {
    key: keys.some((key) => key.revokedAt === null),
    password: !generated,
    publicUrl: isAdmin(actor) ? { set: publicUrl !== defaultPublicUrl(host, port), value: publicUrl } : null,
  };
}

export function dashboardHandlers(web: WebServices) {
  /** `ownerName`: an admin's choice of whose figures to see (everyone's when undefined); a member sees their own. */
  /** What the form says when the URL already has the actor's link: which link, and whether a password must be typed again. */
  function sameUrl(link: Link, form: FormValues) {
    const domain = domainQuery(link.domain, web.registry);
    return {
      code: link.code,
      shortUrl: web.shortUrl(link),
      href: `/links/${encodeURIComponent(link.code)}${domain === '' ? '' : `?${domain}`}`,
      passwordAgain: (form['password'] ?? '') !== '',
    };
  }

  async function showDashboard(
    ctx: Context,
    status: number,
    form: FormValues,
    error: FormError | null,
    ownerName?: string,
    period: PagePeriod = parsePagePeriod({}, web.now(), DASHBOARD_PERIODS),
    existing: ReturnType<typeof sameUrl> | null = null,
  ): Promise<void> {
    const actor = actorOf(ctx);
    const admin = isAdmin(actor);
    const owner = admin && ownerName !== undefined ? await web.owners.idOf(ownerName) : undefined;
    const [{ links }, figures, blockedCount, users] = await Promise.all([
      web.links.listPage(actor, { limit: LATEST }),
      web.stats.figuresFor(actor, { from: period.from, to: period.to, granularity: period.granularity }, owner),
      admin ? web.links.blockedCount() : 0,
      admin ? web.users.listUsers(actor) : [],
    ]);
    // Nothing shortened and nothing visited yet: the first steps instead of a flat chart and rows of zeros.
    const empty = owner === undefined && links.length === 0 && figures.humansAllTime === 0 && figures.links === 0;
    showPage(ctx, web, status, 'dashboard', {
      title: 'Dashboard',
      section: 'home',
      form,
      error,
      optionsOpen: error?.field !== undefined && OPTION_FIELDS.has(error.field),
      utmOpen: utmOpen(form, error),
      defaults: redirectDefaults(web),
      latest: links.map((link) => linkRow(link, web)),
      figures: dashboardFigures(figures, period),
      // Whose figures: a member's own, or the admin's pick among several users.
      figuresOf: admin ? (owner === undefined ? null : (web.ownerName(owner) ?? null)) : 'yours',
      picker: pickerOf(period, DASHBOARD_PERIODS, '/', owner === undefined ? [] : [['owner', ownerName ?? '']]),
      csv: `/stats/dashboard.csv?${periodQuery(period, owner === undefined ? [] : [['owner', ownerName ?? '']])}`,
      compare: '/stats/compare',
      owners: users.length > 1 ? users.map((u) => ({ value: u.name, label: u.name })) : null,
      topLinks: figures.topLinks.map((l) => ({
        ...l,
        bar: shareBar(l.humans, figures.period.humans),
        // The link's stats for the same days.
        href: `/links/${encodeURIComponent(l.code)}/stats?${periodQuery(period, l.domain === DEFAULT_DOMAIN ? [] : [['domain', web.registry.hostOf(l.domain)]])}`,
      })),
      // Only the domains the actor may create links on.
      domains: web.registry.several() ? domainOptions(web, actor) : null,
      domainFigures: admin && owner === undefined && web.registry.several() ? domainFigures(web, figures.domains) : null,
      blocklist: admin ? blocklistSummary(web, blockedCount) : null,
      firstRun: empty ? await firstSteps(web, actor) : null,
      existing,
    });
  }

  function showPublic(
    ctx: Context,
    status: number,
    form: FormValues,
    error: FormError | null,
    result: { shortUrl: string; url: string } | null,
  ): void {
    showPage(ctx, web, status, 'home', { title: 'Shorten a link', form, error, result, utmOpen: utmOpen(form, error) });
  }

  async function createAnonymously(ctx: Context): Promise<void> {
    if (!web.config.anonymousShortening) throw new AppError('unauthorized', 'log in to shorten links');
    const form = formValues(await readForm(ctx, web), PUBLIC_FIELDS);
    try {
      takeCreations(ctx, web, 1);
      const alias = form['alias']?.trim();
      const { link } = await web.creation.createLink(anonymous(web.pipeline.contextOf(ctx.req).client), {
        url: formUrl(form),
        alias: alias === '' ? undefined : alias,
      });
      showPublic(ctx, 200, { url: '', alias: '' }, null, { shortUrl: web.shortUrl(link), url: link.url });
    } catch (err) {
      const error = formFailure(err);
      sendRetryAfter(ctx.res, error);
      showPublic(ctx, STATUS[error.code], form, formError(error, PUBLIC_FIELDS), null);
    }
  }

  return {
    /** GET /stats/dashboard.csv: the dashboard's figures for its period (and owner), as CSV. */
    async exportDashboard(ctx: Context): Promise<void> {
      const actor = actorOf(ctx);
      const period = parsePagePeriod(ctx.query, web.now(), DASHBOARD_PERIODS);
      const ownerName = single(ctx.query, 'owner')?.trim() || undefined;
      const owner = isAdmin(actor) && ownerName !== undefined ? await web.owners.idOf(ownerName) : undefined;
      const figures = await web.stats.figuresFor(actor, { from: period.from, to: period.to, granularity: period.granularity }, owner);
      dashboardCsv(ctx, figures, period, (domain) => web.registry.hostOf(domain));
    },

    /**
     * The dashboard for the logged-in admin, whatever the Host. Anyone else is sent (302, uncached: it may be
     * edited) to the root redirect of the domain the Host names, if it has one; a Host that is none of kurz's
     * domains is refused with 421 when `unknownHosts` is refuse, as the redirect does.
     */
    async showHome(ctx: Context): Promise<void> {
      if (sessionOf(ctx)) {
        const form = { ...formValues({}, LINK_FIELDS), domain: web.registry.defaultHost, enabled: 'true' };
        const period = parsePagePeriod(ctx.query, web.now(), DASHBOARD_PERIODS);
        return showDashboard(ctx, 200, form, null, single(ctx.query, 'owner')?.trim() || undefined, period);
      }
      const domain = web.registry.domainOfRequest(ctx.req.rawHeaders);
      if (domain === undefined && web.config.unknownHosts === 'refuse')
        throw new AppError('misdirected', `kurz does not serve the host ${JSON.stringify(ctx.get('host'))}`);
      const rootRedirect = web.registry.byId(domain ?? DEFAULT_DOMAIN)?.rootRedirect;
      if (rootRedirect) return sendRedirect(ctx.res, 302, rootRedirect, UNCACHED);
      if (!web.config.anonymousShortening) return sendSeeOther(ctx.res, '/login');
      showPublic(ctx, 200, { url: '', alias: '' }, null, null);
    },

    /** Creates the link and shows its page (Post/Redirect/Get); a refused one shows the form again as it was typed. */
    async createLink(ctx: Context): Promise<void> {
      if (!sessionOf(ctx)) return createAnonymously(ctx);
      const raw = await readForm(ctx, web);
      const form = formValues(raw, LINK_FIELDS);
      try {
        takeCreations(ctx, web, 1);
        const how = { ask: true, separate: textOf(raw, 'separate') === '1' };
        const { link, created, withheld } = await web.creation.createLink(actorOf(ctx), linkInput(form, false), how);
        // With a title, tags or other options, the earlier link is offered beside the form, kept as typed.
        if (withheld) return await showDashboard(ctx, 200, { ...form, password: '' }, null, undefined, undefined, sameUrl(link, form));
        sendSeeOther(ctx.res, madeLinkPath(link, created, web.registry));
      } catch (err) {
        const error = formFailure(err);
        sendRetryAfter(ctx.res, error);
        await showDashboard(ctx, STATUS[error.code], { ...form, password: '' }, formError(error, shownFields(web, LINK_FIELDS)));
      }
    },
  };
}
