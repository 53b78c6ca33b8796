import type { IncomingMessage } from 'node:http';
import type { Access } from '../auth/access.ts';
import type { Gate } from '../links/link.ts';
import { FIELD_LABELS, type AnswerProblems, type PageSettings } from '../rules/page-settings.ts';
import type { PageKind } from '../rules/rule.ts';
import { acceptedLanguages, inAppBrowser } from '../visits/classify.ts';
import { OPEN_IN_BROWSER_TEXTS, type OpenInBrowserTexts } from './open-in-browser-texts.ts';

// The pages before the redirect (issue 26): what the edge shows for a `page` outcome, and the signed pass
// with which its button, form or "continue here anyway" leads on (web/handlers/page-flow.ts). The pass names
// the link, the visitor's query and an expiry, signed with the instance's secret: the page never holds the
// target, and a visitor cannot skip it by making one up.

/** How long a page's pass is good for. */
export const PASS_MS = 60 * 60 * 1000;

/** What a pass signs: the link, its expiry (marked `u` past the link's password) and the query. */
const passValue = (linkId: number, query: string, expires: number, unlocked: boolean): string =>
  `${linkId}|${expires}${unlocked ? 'u' : ''}|${query}`;

/**
 * A pass through link `linkId`'s page for a visit with `query`, good until `now` + PASS_MS; `unlocked` when the
 * visitor gave the link's password before the page (web/handlers/unlock.ts), which the pass then carries on.
 */
export function newPass(access: Pick<Access, 'pageToken'>, linkId: number, query: string, now: number, unlocked = false): string {
  const expires = now + PASS_MS;
  return `${expires}${unlocked ? 'u' : ''}.${access.pageToken(passValue(linkId, query, expires, unlocked))}`;
}

/**
 * Whether `pass` is one `newPass` gave for this link and query: `ok`, `expired` or `forged` (anything else),
 * and whether it was given past the link's password.
 */
export function checkPass(
  access: Pick<Access, 'checkPageToken'>,
  linkId: number,
  query: string,
  pass: unknown,
  now: number,
): { verdict: 'ok' | 'expired' | 'forged'; unlocked: boolean } {
  if (typeof pass !== 'string' || pass.length > 200) return FORGED;
  const dot = pass.indexOf('.');
  const head = pass.slice(0, Math.max(dot, 0));
  const unlocked = head.endsWith('u');
  const expires = Number(unlocked ? head.slice(0, -1) : head);
  if (
    dot <= 0 ||
    !Number.isSafeInteger(expires) ||
    !access.checkPageToken(passValue(linkId, query, expires, unlocked), pass.slice(dot + 1))
  )
    return FORGED;
  return { verdict: now < expires ? 'ok' : 'expired', unlocked };
}

const FORGED = { verdict: 'forged', unlocked: false } as const;

/** What a page's view (views/page.eta) is given. */
export interface PageModel {
  title: string;
  lang: string;
  kind: PageKind;
  code: string;
  pass: string;
  query: string;
  notice: PageSettings['notice'];
  form: PageSettings['form'] & { labels: Record<string, string> };
  /** The form's answers as given, shown again with `problems`. */
  values: Record<string, string>;
  problems: AnswerProblems;
  consent: boolean;
  shortUrl: string;
  texts: OpenInBrowserTexts | null;
  app: string | null;
}

/**
 * The view model of link `code`'s page `kind`, for the request `req` (its query, user agent and languages);
 * `page.unlocked` when the visitor gave the link's password first.
 */
export function pageModel(
  kind: PageKind,
  gate: Pick<Gate, 'pages'>,
  page: { code: string; linkId: number; query: string; shortUrl: string; now: number; unlocked?: boolean },
  req: IncomingMessage,
  access: Pick<Access, 'pageToken'>,
  given: { values?: Record<string, string>; problems?: AnswerProblems; consent?: boolean } = {},
): PageModel {
  const { notice, form } = gate.pages;
  const texts = kind === 'open-in-browser' ? textsFor(req.headers['accept-language'] ?? '') : null;
  const labels: Record<string, string> = {};
  for (const field of form?.fields ?? []) labels[field.type] = field.label ?? FIELD_LABELS[field.type];
  return {
    title: kind === 'notice' ? (notice?.title ?? 'Before you go on') : kind === 'form' ? 'Before you go on' : texts!.title,
    lang: texts?.lang ?? 'en',
    kind,
    code: page.code,
    pass: newPass(access, page.linkId, page.query, page.now, page.unlocked),
    query: page.query,
    notice,
    form: { fields: form?.fields ?? [], consent: form?.consent ?? null, labels },
    values: given.values ?? {},
    problems: given.problems ?? {},
    consent: given.consent ?? false,
    shortUrl: page.shortUrl + (page.query === '' ? '' : `?${page.query}`),
    texts,
    app: texts === null ? null : appName(inAppBrowser(req.headers['user-agent'] ?? '')),
  };
}

/** The open-in-browser texts in the visitor's first language kurz has (Accept-Language), English otherwise. */
export function textsFor(acceptLanguage: string): OpenInBrowserTexts {
  for (const range of acceptedLanguages(acceptLanguage, 0.01)) {
    const texts = OPEN_IN_BROWSER_TEXTS[range.split('-')[0]!];
    if (texts !== undefined) return texts;
  }
  return OPEN_IN_BROWSER_TEXTS['en']!;
}

const APP_NAMES: Readonly<Record<string, string>> = {
  wechat: 'WeChat',
  instagram: 'Instagram',
  facebook: 'Facebook',
  tiktok: 'TikTok',
  line: 'LINE',
  linkedin: 'LinkedIn',
  snapchat: 'Snapchat',
  telegram: 'Telegram',
  x: 'X',
  pinterest: 'Pinterest',
};

function appName(app: string | null): string | null {
  return app === null ? null : (APP_NAMES[app] ?? null);
}
