import { AUDIT_QUERY, LINK_AUDIT_QUERY } from '../audit/audit-query.ts';
import { AUDIT_ACTIONS, SUBJECT_KINDS } from '../audit/entry.ts';
import { STATUS, type ErrorCode } from '../core/errors.ts';
import { jsonSchemaOf } from '../core/request-schema.ts';
import { VERSION } from '../core/version.ts';
import { SOURCES } from '../transfer/sources.ts';
import { BODY_LIMIT, BULK_BODY_LIMIT, sizeText, UPLOAD_LIMIT } from '../http/body.ts';
import { MAX_REQUEST_TARGET } from '../http/server.ts';
import {
  openApiDocument,
  type ApiDefinition,
  type MediaType,
  type Method,
  type OpenApiDocument,
  type Operation,
  type OperationDef,
  type Parameter,
  type PathItem,
  type Reference,
  type Response,
  type Schema,
} from '../http/openapi-document.ts';
import { TAG as TAG_FIELD } from '../links/link-fields.ts';
import { LINK_JSON } from '../links/link-json.ts';
import { REDIRECT_STATUSES } from '../links/link-options.ts';
import { DOMAIN_PARAM, LIST_QUERY } from '../links/list-query.ts';
import { BULK_MOST } from '../links/bulk.ts';
import { BATCH_CREATE, BATCH_MAX, LINK_CREATE, LINK_EDIT, RULES_BODY, TAG_RENAME } from './handlers/links-api.ts';
import { CONDITION_TYPES, PAGES, RULE_LIMITS } from '../rules/rule.ts';
import { LINK_FIELDS } from './forms.ts';
import { PAGE_FIELDS } from './page-settings-form.ts';
import { QR_QUERY } from './handlers/qr.ts';
import { DOMAIN_CREATE, DOMAIN_EDIT, DOMAIN_JSON } from './handlers/domains-api.ts';
import { DELIVERY_JSON, WEBHOOK_CREATE, WEBHOOK_EDIT, WEBHOOK_JSON } from './handlers/webhooks-api.ts';
import { HANDOVER_JSON, USER_CREATE, USER_EDIT, USER_HANDOVER, USER_INVITATION, USER_JSON } from './handlers/users-api.ts';
import { DOMAIN_QUERY, withDomain } from './domain-param.ts';
import { CSRF_FIELD, SESSION_COOKIE } from './session.ts';
import { SCOPE_DOCS, SCOPES, type Scope } from '../auth/scopes.ts';
import { TOP } from '../visits/stats.ts';
import { DAYS_QUERY, EXPORT_QUERY, PAGE_PERIOD_QUERY, STATS_QUERY } from '../visits/stats-query.ts';
import { BREAKDOWNS } from '../visits/visit.ts';
import { LINK_EVENTS } from '../webhooks/webhook.ts';

export type { OpenApiDocument } from '../http/openapi-document.ts';

const schema = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
const parameter = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });
const json = (body: Schema): Record<string, MediaType> => ({ 'application/json': { schema: body } });
const HTML: Record<string, MediaType> = { 'text/html': { schema: { type: 'string' } } };
const PROBLEM: Record<string, MediaType> = { 'application/problem+json': { schema: schema('Problem') } };

/** An HTML page. */
const page = (description: string): Response => ({ description, content: HTML });
/** An error for a route browsers and programs both follow: a page for browsers, problem+json for the rest. */
const pageOrProblem = (description: string): Response => ({ description, content: { ...HTML, ...PROBLEM } });
const seeOther = (description: string): Response => ({
  description,
  headers: { Location: { description: 'Where to go next', schema: { type: 'string' } } },
  content: { 'text/plain': { schema: { type: 'string' } } },
});

/** A form post: its CSRF field (from the page that shows the form) and `fields`, as text. */
function form(fields: readonly string[], required: readonly string[] = []): Record<string, MediaType> {
  const properties: Record<string, Schema> = { [CSRF_FIELD]: { type: 'string', description: 'The CSRF token of the form' } };
  for (const name of fields) properties[name] = { type: 'string' };
  const patternProperties = fields.includes('access') ? DOMAIN_USER_BOXES : undefined;
  return {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', required: [CSRF_FIELD, ...required], properties, ...(patternProperties && { patternProperties }) },
    },
  };
}

/** A domain form's user picker: with `access` "some", a ticked box `user:NAME` for each user who may use it. */
const DOMAIN_USER_BOXES: Record<string, Schema> = {
  '^user:[A-Za-z0-9._@-]{1,64}$': { type: 'string', description: 'Ticked (any value): this user may create links on the domain' },
};

const PUBLIC: Record<string, []>[] = [];
const SESSION: Record<string, []>[] = [{ session: [] }];
/** Anyone, and the logged-in admin sees more. */
const OPTIONAL_SESSION: Record<string, []>[] = [{}, { session: [] }];
const ERROR_CODES = Object.keys(STATUS) as ErrorCode[];
const CODE: Schema = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' };
const TAG = jsonSchemaOf(TAG_FIELD) as Schema;

const COUNT: Schema = { type: 'integer', minimum: 0 };

const TOP_LIST: Schema = {
  type: 'array',
  maxItems: TOP,
  description: `By count, then name; past ${TOP - 1} entries the rest is one "other" entry. Unknown values are "unknown"; no referrer is "direct"`,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'count'],
    properties: { name: { type: 'string' }, count: COUNT },
  },
};

const DETAIL_DROPPED: Schema = {
  type: 'integer',
  minimum: 0,
  description:
    'Visits (people and bots) only counted, their detail (referrer, browser, country, visitor…) dropped because too many waited for the database: in the counts, in no breakdown',
};

const DAY_FIGURES = (day: boolean): Schema => ({
  type: 'object',
  additionalProperties: false,
  required: [...(day ? ['t'] : ['detailDropped']), 'linksCreated', 'humans', 'bots', 'uniqueVisitors'],
  properties: {
    ...(day ? { t: { type: 'string', format: 'date-time', description: 'Start of the UTC day' } as Schema } : {}),
    linksCreated: COUNT,
    humans: COUNT,
    bots: COUNT,
    uniqueVisitors: COUNT,
    ...(day ? {} : { detailDropped: DETAIL_DROPPED }),
  },
});

const SCHEMAS: Record<string, Schema> = {
  Rule: {
    type: 'object',
    additionalProperties: false,
    required: ['conditions'],
    description:
      'A redirect rule: all its conditions must match (none: every visitor); then its one action decides (target: redirect there; split: redirect to a ' +
      "variant drawn from the visitor's daily hash; refuse: 451 or 403 with a page; page: show the link's notice, form or open-in-browser page first, which needs the link's pages set)",
    properties: {
      conditions: {
        type: 'array',
        maxItems: RULE_LIMITS.conditions,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['type'],
          description: "Shlink's condition shape; matchKey is the query parameter's name for the query-* types, null otherwise",
          properties: {
            type: { type: 'string', enum: [...CONDITION_TYPES] },
            matchKey: { type: ['string', 'null'], maxLength: RULE_LIMITS.value },
            matchValue: { type: ['string', 'null'], maxLength: RULE_LIMITS.value },
          },
        },
      },
      target: { type: 'string', format: 'uri', description: 'Redirect here, with the link’s own status and query forwarding' },
      refuse: { type: 'integer', enum: [451, 403], description: '451: not available in the visitor’s region; 403: not available to them' },
      split: {
        type: 'array',
        minItems: 2,
        maxItems: 20,
        description: 'An A/B split: each visitor keeps one variant for the day; at least one not paused',
        items: schema('Variant'),
      },
      page: { type: 'string', enum: [...PAGES], description: 'Not served yet: a 400' },
    },
  },
  Variant: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'weight'],
    description: "A variant of an A/B split: its share of the visitors is its weight over the sum of the unpaused variants' weights",
    properties: {
      url: { type: 'string', format: 'uri' },
      weight: { type: 'integer', minimum: 1, maximum: 1000 },
      paused: { type: 'boolean', description: 'A paused variant gets no visitors; its history stays in the stats' },
    },
  },
  RuleList: {
    type: 'object',
    additionalProperties: false,
    required: ['rules'],
    properties: { rules: { type: 'array', items: schema('Rule'), description: 'In order, as set; [] for none' } },
  },
  UserList: {
    type: 'object',
    additionalProperties: false,
    required: ['users'],
    properties: { users: { type: 'array', items: schema('User') } },
  },
  AuditPage: {
    type: 'object',
    additionalProperties: false,
    required: ['entries', 'nextCursor'],
    properties: {
      entries: {
        type: 'array',
        description: 'Newest first',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'at', 'actorId', 'actorName', 'via', 'keyName', 'client', 'action', 'subject', 'details'],
          properties: {
            id: { type: 'string', description: 'Opaque, unique among entries' },
            at: { type: 'string', format: 'date-time' },
            actorId: { type: ['integer', 'null'] },
            actorName: { type: 'string' },
            via: { type: 'string', enum: ['session', 'key', 'password', 'cli', 'anonymous'] },
            keyName: { type: ['string', 'null'], description: "The API key's name when via is key" },
            client: { type: ['string', 'null'], description: "The client's address; null for the CLI" },
            action: { type: 'string', enum: [...AUDIT_ACTIONS] },
            subject: {
              type: 'object',
              additionalProperties: false,
              required: ['kind', 'id', 'label'],
              properties: {
                kind: { type: 'string', enum: [...SUBJECT_KINDS] },
                id: { type: 'integer' },
                label: { type: 'string', description: 'A short URL, a key or user name, a host: as it was' },
              },
            },
            details: {
              type: 'object',
              description: 'What changed, briefly (never a secret): strings, numbers, booleans or null',
            },
          },
        },
      },
      nextCursor: { type: ['string', 'null'], description: "The next page's cursor; null on the last page" },
    },
  },
  DomainList: {
    type: 'object',
    additionalProperties: false,
    required: ['domains'],
    properties: { domains: { type: 'array', items: schema('Domain') } },
  },
  LinkList: {
    type: 'object',
    additionalProperties: false,
    required: ['links', 'nextCursor'],
    properties: {
      links: { type: 'array', items: schema('Link') },
      nextCursor: { type: ['string', 'null'], description: "The next page's `cursor`; null on the last page" },
    },
  },
  BatchResult: {
    type: 'object',
    additionalProperties: false,
    required: ['created', 'existing', 'failed', 'results'],
    properties: {
      created: { type: 'integer', minimum: 0 },
      existing: { type: 'integer', minimum: 0 },
      failed: { type: 'integer', minimum: 0 },
      results: {
        type: 'array',
        description: 'One per entry, in order',
        items: {
          oneOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['status', 'link'],
              properties: { status: { enum: ['created', 'existing'] }, link: schema('Link') },
            },
            {
              type: 'object',
              additionalProperties: false,
              required: ['status', 'error'],
              properties: {
                status: { const: 'error' },
                error: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['code', 'message'],
                  properties: { code: { enum: ERROR_CODES }, message: { type: 'string' }, field: { type: 'string' } },
                },
              },
            },
          ],
        },
      },
    },
  },
  LinkStats: {
    type: 'object',
    additionalProperties: false,
    description: "A link's visits in a period, aligned to whole UTC hours or days. Bots never count as visits; they are listed apart.",
    required: ['from', 'to', 'granularity', 'visits', 'lastVisitAt', 'series', ...BREAKDOWNS, 'variants', 'rules'],
    properties: {
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time', description: 'Exclusive' },
      granularity: { enum: ['hour', 'day'] },
      visits: {
        type: 'object',
        additionalProperties: false,
        required: ['total', 'humans', 'bots', 'uniqueVisitors', 'detailDropped'],
        properties: {
          total: COUNT,
          humans: COUNT,
          bots: COUNT,
          detailDropped: DETAIL_DROPPED,
          uniqueVisitors: {
            type: 'integer',
            minimum: 0,
            description: 'A visitor counts once per link and UTC day (daily-salted hash; no address is stored)',
          },
        },
      },
      lastVisitAt: { type: ['string', 'null'], format: 'date-time', description: 'The last human visit, ever' },
      series: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['t', 'humans', 'bots'],
          properties: { t: { type: 'string', format: 'date-time', description: 'Start of the hour or day' }, humans: COUNT, bots: COUNT },
        },
      },
      ...Object.fromEntries(BREAKDOWNS.map((d) => [d, TOP_LIST])),
      variants: {
        type: 'array',
        description:
          "An A/B split's variants (the link's own split's and its rules'), by URL, most visited first: every visit (bots too), the unique visitors (once per UTC day, counted for the variant they reached first) and the humans",
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'visits', 'uniqueVisitors', 'humans'],
          properties: { url: { type: 'string' }, visits: COUNT, uniqueVisitors: COUNT, humans: COUNT },
        },
      },
      rules: {
        ...TOP_LIST,
        description: `Human visits by the redirect rule that decided them, a rule named by its conditions in words ("language is de and device is mobile", "every visitor" for none), "no rule matched" for the link's own target; [] for a link without rules. By count, then name; past ${TOP - 1} entries the rest is one "other" entry`,
      },
    },
  },
  InstanceStats: {
    type: 'object',
    additionalProperties: false,
    description: "The instance's figures for the last `days` UTC days, today included: the dashboard's.",
    required: ['from', 'to', 'totals', 'period', 'days', 'domains', 'topLinks'],
    properties: {
      from: { type: 'string', format: 'date-time' },
      to: { type: 'string', format: 'date-time' },
      totals: {
        type: 'object',
        additionalProperties: false,
        required: ['links', 'humans'],
        properties: { links: { ...COUNT, description: 'Live links' }, humans: { ...COUNT, description: 'Human visits, ever' } },
      },
      period: DAY_FIGURES(false),
      days: { type: 'array', items: DAY_FIGURES(true) },
      domains: {
        type: 'array',
        description: "Per domain, when there are several (else empty): its live links and its links' human visits in the period",
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['domain', 'links', 'humans'],
          properties: { domain: { type: 'string' }, links: COUNT, humans: COUNT },
        },
      },
      topLinks: {
        type: 'array',
        maxItems: TOP,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'shortUrl', 'url', 'title', 'humans', 'bots', 'uniqueVisitors'],
          properties: {
            code: { type: 'string' },
            shortUrl: { type: 'string', format: 'uri' },
            url: { type: 'string', format: 'uri' },
            title: { type: ['string', 'null'] },
            humans: COUNT,
            bots: COUNT,
            uniqueVisitors: COUNT,
          },
        },
      },
    },
  },
  TagRenamed: {
    type: 'object',
    additionalProperties: false,
    required: ['from', 'to', 'links'],
    properties: { from: TAG, to: TAG, links: { type: 'integer', minimum: 1, description: 'Links that had the old name' } },
  },
  TagDeleted: {
    type: 'object',
    additionalProperties: false,
    required: ['tag', 'links'],
    properties: { tag: TAG, links: { type: 'integer', minimum: 1, description: 'Links that had it' } },
  },
  TagList: {
    type: 'object',
    additionalProperties: false,
    required: ['tags'],
    properties: {
      tags: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tag', 'count'],
          properties: { tag: TAG, count: { type: 'integer', minimum: 1, description: 'Live links carrying it' } },
        },
      },
    },
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details; `code` and `field` let a program react without reading `detail`',
    additionalProperties: false,
    required: ['type', 'title', 'status', 'code', 'detail'],
    properties: {
      type: { type: 'string', const: 'about:blank' },
      title: { type: 'string', description: 'The status text' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      code: { enum: ERROR_CODES },
      detail: { type: 'string', description: 'What went wrong, for people' },
      field: { type: 'string', description: 'The input at fault, when there is one' },
    },
  },
  Health: {
    type: 'object',
    additionalProperties: false,
    required: ['status', 'database'],
    properties: {
      status: { enum: ['ok', 'unhealthy'] },
      database: { enum: ['sqlite', 'postgres'], description: 'The backend: the SQLite file, or PostgreSQL (databaseUrl)' },
      problem: {
        enum: ['database unreachable', 'disk full', 'read-only', 'locked by another program', 'I/O error'],
        description:
          'When unhealthy, what is wrong: PostgreSQL cannot be reached; or writes to the SQLite file failed (a full disk, a file or file system that became read-only, the write lock held by another program past the 5 s wait, an I/O error) and the cause is not gone yet',
      },
    },
  },
  OpenApi: {
    type: 'object',
    description: 'This document',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { type: 'string', const: '3.1.0' } },
  },
};

/** Why any call may answer 503: the database, not the request. */
const UNAVAILABLE =
  'The database cannot be reached (PostgreSQL) or written (SQLite: a full disk, a read-only file, the write lock held by another ' +
  'program past the 5 s wait); nothing was stored (unless `detail` says the disk sync failed); try again later. /healthz says what is wrong';

const RESPONSES: Record<string, Response> = {
  Invalid: { description: 'The request is invalid; `field` names the input at fault', content: PROBLEM },
  Unauthorized: {
    description: 'No API key or session, or an unknown, revoked or expired key (`detail` says which)',
    headers: {
      'WWW-Authenticate': {
        description: '`Bearer realm="kurz"`, with `error="invalid_token"` when a key was sent and is no good (RFC 6750)',
        schema: { type: 'string' },
      },
    },
    content: PROBLEM,
  },
  Forbidden: {
    description:
      "The API key lacks the scope this call needs, the call is an admin's and a member made it, or the link would land on a domain not open to the user (`field` is then `domain`); `detail` says which",
    content: PROBLEM,
  },
  NotFound: { description: 'No link has this code', content: PROBLEM },
  Gone: { description: 'The link was deleted', content: PROBLEM },
  TooLarge: {
    description: `The body is larger than ${sizeText(BODY_LIMIT)} (${sizeText(BULK_BODY_LIMIT)} for a batch or the bulk form)`,
    content: { ...HTML, ...PROBLEM },
  },
  RateLimited: {
    description:
      'Too many requests from this client (creations, wrong logins, passwords or API keys, unknown codes): wait Retry-After seconds',
    headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer', minimum: 1 } } },
    content: { ...HTML, ...PROBLEM },
  },
  UriTooLong: { description: `The request URL is longer than ${MAX_REQUEST_TARGET} characters`, content: { ...HTML, ...PROBLEM } },
  RequestTimeout: { description: 'The headers or the body came too slowly (headersTimeout, requestTimeout)', content: PROBLEM },
  HeadersTooLarge: { description: 'The request line and headers are larger than maxHeaderSize', content: PROBLEM },
  UnsupportedType: { description: 'The body is not JSON', content: PROBLEM },
  Unavailable: { description: UNAVAILABLE, content: PROBLEM },
};

const PARAMETERS: Record<string, Parameter> = {
  code: { name: 'code', in: 'path', required: true, description: "The link's code", schema: CODE },
  domain: {
    name: 'domain',
    in: 'query',
    description: "The link's domain (a host) when it is not the default domain",
    schema: jsonSchemaOf(DOMAIN_PARAM.unwrap()) as Schema,
  },
  host: {
    name: 'host',
    in: 'path',
    required: true,
    description: "A domain's host (the publicUrl's host names the default domain)",
    schema: { type: 'string' },
  },
  name: { name: 'name', in: 'path', required: true, description: "A user's name, in any case", schema: { type: 'string' } },
  tag: {
    name: 'tag',
    in: 'path',
    required: true,
    description: 'A tag, exactly as the links carry it (percent-encoded)',
    schema: { type: 'string' },
  },
  token: { name: 'token', in: 'path', required: true, description: 'The token of a one-time link', schema: { type: 'string' } },
  webhook: { name: 'id', in: 'path', required: true, description: "One of your webhooks' id", schema: { type: 'integer' } },
};

/** An API call for admins (users): a member's session or key gets 403. */
const adminApi = (operation: Omit<OperationDef, 'tags'>): OperationDef => ({
  tags: ['users'],
  ...operation,
  responses: { ...operation.responses, '503': response('Unavailable') },
});

const linksApi = (operation: Omit<OperationDef, 'tags'>): OperationDef => ({
  tags: ['links'],
  ...operation,
  responses: { ...operation.responses, '503': response('Unavailable') },
});
/** What every form post may answer before its handler runs (web/session.ts's readForm, http/body.ts). */
const FORM_BODY_REFUSED = {
  '400': pageOrProblem('The body is empty or unreadable: not UTF-8, not percent-encoded UTF-8, or a field given twice'),
  '413': pageOrProblem('The body is larger than 64 KiB'),
  '415': pageOrProblem('Not a form, or compressed'),
};

const pages = (operation: Omit<OperationDef, 'tags' | 'security'>, security = PUBLIC): OperationDef => ({
  tags: ['pages'],
  security,
  ...operation,
  responses: {
    ...(operation.requestBody ? FORM_BODY_REFUSED : {}),
    ...operation.responses,
    '503': page(UNAVAILABLE),
  },
});
const NOT_LOGGED_IN = pageOrProblem('No session');
const FORM_REFUSED = page('The form expired or came from elsewhere (CSRF)');

/** A page for the logged-in admin; a browser without a session is sent to the login page, and back after. */
/** The comparison's links: `code=CODE` on `domain`, or `code=HOST/CODE`, two to five times. */
const COMPARE_CODES = {
  name: 'code',
  in: 'query',
  description: 'A link to compare: its code (on `domain`, default the default domain) or HOST/CODE; two to five',
  schema: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 5 },
  style: 'form',
  explode: true,
} as const;

const adminPage = (operation: Omit<OperationDef, 'tags' | 'security'>): OperationDef =>
  pages({ ...operation, responses: { '303': seeOther('No session: to /login'), ...operation.responses, '401': NOT_LOGGED_IN } }, SESSION);

/** A form post of the logged-in admin with `fields`. */
const adminForm = (fields: readonly string[], operation: Omit<Operation, 'tags' | 'security' | 'requestBody'>): Operation =>
  pages(
    {
      ...operation,
      requestBody: { required: true, content: form(fields) },
      responses: { ...operation.responses, '401': NOT_LOGGED_IN, '403': FORM_REFUSED },
    },
    SESSION,
  );

const text = (type: string, operationId: string, summary: string): Operation => ({
  operationId,
  summary,
  tags: ['system'],
  security: PUBLIC,
  responses: { '200': { description: summary, content: { [type]: {} } } },
});

/** YOURLS' parameters, from the query or a form or multipart body (the README's "YOURLS' API" says more). */
const YOURLS_PARAMETERS = [
  ['action', 'shorturl, expand, url-stats, stats, db-stats or version'],
  ['format', 'xml (the default), json, jsonp (with `callback`) or simple (the bare text)'],
  ['signature', "A kurz API key; with `timestamp`, a hash of the timestamp and the key's YOURLS signature token, in either order"],
  ['timestamp', 'Unix seconds, within 12 hours of now, for a timed signature'],
  ['hash', "md5, sha256, sha384 or sha512: the timed signature's hash (default: by its length)"],
  ['username', "A kurz user's name, with `password` (counted against the login limits)"],
  ['password', "The user's password"],
  ['url', 'shorturl: the URL to shorten'],
  ['keyword', "shorturl: a code of one's own"],
  ['title', 'shorturl: the title'],
  ['shorturl', 'expand and url-stats: a code, or a short URL'],
  ['filter', 'stats: top, bottom, rand or last'],
  ['limit', 'stats: how many links (none without it, as in YOURLS)'],
  ['start', 'stats: how many to skip'],
  ['callback', 'jsonp: the function to call'],
] as const;

/** /yourls-api.php: its answers are YOURLS' own, in the format asked for. */
const yourlsOperation = (operationId: string): Operation => ({
  operationId,
  summary: "YOURLS' API: shorten, expand and count, answered as YOURLS answers",
  description:
    "YOURLS' own status codes and fields (`status`, `code`, `message`, `errorCode`, `statusCode`); a URL already shortened " +
    "answers 400 `error:url` with its `shorturl`. A session cookie is not enough: send a key or a user's password. " +
    'The key needs links:write to shorten, links:read to expand and stats:read for the statistics.',
  tags: ['yourls'],
  security: PUBLIC,
  parameters: YOURLS_PARAMETERS.map(([name, description]) => ({ name, in: 'query', description, schema: { type: 'string' } })),
  responses: {
    '200': {
      description: 'Done, in `format`',
      content: { 'application/xml': {}, 'application/json': {}, 'application/javascript': {}, 'text/plain': {} },
    },
    '400': { description: 'A bad parameter, a URL already shortened, a taken keyword, an unknown action' },
    '403': { description: 'No credentials, wrong ones, or a key without the scope' },
    '404': { description: 'expand and url-stats: no such short URL (of yours)' },
    '429': { description: 'Too many creations, or wrong keys or passwords, from this client: wait Retry-After seconds' },
  },
});

const REDIRECT: Omit<Operation, 'operationId'> = {
  summary: 'Follow a short link',
  description:
    "Answered by kurz's edge for any one-segment path that is not one of kurz's own. The visitor's query string is appended " +
    'to the target when the link forwards queries. A HEAD is answered the same but counts no visit. A link with a visit ' +
    'limit, an expiry or a password hands out its target only to a GET that counts (from a browser, not a bot), with ' +
    'Cache-Control: no-store; a HEAD or a bot gets its state instead (200, or 410 once used up), without Location.',
  tags: ['redirect'],
  security: PUBLIC,
  parameters: [parameter('code')],
  responses: {
    ...Object.fromEntries(
      REDIRECT_STATUSES.map((status) => [
        String(status),
        {
          description: `To the target (the link's or the instance's redirect status)`,
          headers: { Location: { description: 'The target', schema: { type: 'string', format: 'uri' } } },
        },
      ]),
    ),
    '200': {
      description:
        'A password link, to a browser: the password form, which posts to /links/{code}/unlock. A link with a visit limit or an ' +
        'expiry, to a HEAD or a bot: its state, without the target',
      content: {
        ...HTML,
        ...json({
          type: 'object',
          additionalProperties: false,
          required: ['code', 'state', 'detail'],
          properties: { code: { type: 'string' }, state: { type: 'string', const: 'live' }, detail: { type: 'string' } },
        }),
      },
    },
    '401': { description: 'A password link, to a program: POST the password to /links/{code}/unlock', content: PROBLEM },
    '404': pageOrProblem('No link has this code'),
    '403': {
      description:
        'The link waits for an admin\'s review (reviewNewLinks): "this link is being reviewed", never its target; or a redirect ' +
        'rule of the link refuses the visitor (Cache-Control: no-store)',
      content: { ...HTML, ...PROBLEM },
    },
    '451': {
      description: 'A redirect rule of the link refuses the visitor: not available in their region (Cache-Control: no-store)',
      content: { ...HTML, ...PROBLEM },
    },
    '410': pageOrProblem(
      'The link was deleted, rejected in review, is disabled (by its owner or the blocklist), has expired or has used up its visits',
    ),
    '503': pageOrProblem(`A link with a visit limit, or one not in the cache on PostgreSQL: ${UNAVAILABLE}`),
  },
};

/**
 * What any request may be answered, whatever its route: a client over a rate limit (the 404 limit refuses
 * every request of a client scanning for codes), a URL or headers too long, a request too slow.
 */
const ANY_REQUEST: Record<string, Reference> = {
  '408': response('RequestTimeout'),
  '414': response('UriTooLong'),
  '429': response('RateLimited'),
  '431': response('HeadersTooLarge'),
};

/** Every operation with the answers any request may get, and 413 for those that take a body. */
function withLimits(paths: ApiDefinition['paths']): ApiDefinition['paths'] {
  const limited = (operation: OperationDef): OperationDef => ({
    ...operation,
    responses: {
      ...ANY_REQUEST,
      ...(operation.requestBody || operation.body ? { '413': response('TooLarge') } : {}),
      ...operation.responses,
    },
  });
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, limited(operation)])),
    ]),
  );
}

/** Shlink's REST API (src/web/shlink/): each route's operation id and summary; Shlink's own description has the rest. */
const SHLINK_OPERATIONS: Readonly<Record<string, readonly [string, string]>> = {
  'GET /rest/health': ['shlinkHealth', "Shlink's health check (application/health+json), with no key"],
  'GET /rest/{version}/health': ['shlinkVersionHealth', "Shlink's health check under a version, with no key"],
  'GET /rest/{version}/mercure-info': ['shlinkMercureInfo', 'Always 501 mercure-not-configured: kurz has no Mercure hub'],
  'GET /rest/{version}/short-urls': ['shlinkListShortUrls', "Short URLs, a numbered page at a time, with Shlink's filters"],
  'POST /rest/{version}/short-urls': ['shlinkCreateShortUrl', 'Create a short URL'],
  'GET /rest/{version}/short-urls/{shortCode}': ['shlinkGetShortUrl', 'One short URL'],
  'PATCH /rest/{version}/short-urls/{shortCode}': ['shlinkEditShortUrl', 'Edit a short URL'],
  'DELETE /rest/{version}/short-urls/{shortCode}': ['shlinkDeleteShortUrl', 'Delete a short URL (kurz keeps its code retired)'],
  'GET /rest/{version}/short-urls/{shortCode}/visits': ['shlinkShortUrlVisits', 'The raw visits kept of a short URL'],
  'GET /rest/{version}/short-urls/{shortCode}/redirect-rules': ['shlinkListRedirectRules', "A short URL's redirect rules Shlink can show"],
  'POST /rest/{version}/short-urls/{shortCode}/redirect-rules': ['shlinkSetRedirectRules', "Replace a short URL's redirect rules"],
  'GET /rest/{version}/tags': ['shlinkListTags', 'Tag names'],
  'PUT /rest/{version}/tags': ['shlinkRenameTag', 'Rename a tag'],
  'DELETE /rest/{version}/tags': ['shlinkDeleteTags', 'Take tags off their short URLs'],
  'GET /rest/{version}/tags/stats': ['shlinkTagStats', 'Tags with their short URLs and visits'],
  'GET /rest/{version}/tags/{tag}/visits': ['shlinkTagVisits', 'The raw visits kept of the short URLs with a tag'],
  'GET /rest/{version}/domains': ['shlinkListDomains', 'Domains and their redirects'],
  'PATCH /rest/{version}/domains/redirects': ['shlinkSetDomainRedirects', "Set a domain's redirects (admins)"],
  'GET /rest/{version}/domains/{domain}/visits': ['shlinkDomainVisits', 'The raw visits kept of the short URLs on a domain'],
  'GET /rest/{version}/visits': ['shlinkVisitsOverview', "All-time visits, people's and bots'"],
  'GET /rest/{version}/visits/non-orphan': ['shlinkNonOrphanVisits', 'The raw visits kept of every short URL'],
  'GET /rest/{version}/visits/orphan': ['shlinkOrphanVisits', 'Always empty: kurz records no visits to paths that are no short URL'],
  'DELETE /rest/{version}/visits/orphan': ['shlinkDeleteOrphanVisits', 'Always deletes none: kurz records no orphan visits'],
};

const SHLINK_PARAMETERS: Readonly<Record<string, Parameter>> = {
  version: {
    name: 'version',
    in: 'path',
    required: true,
    description: "Shlink's API version; all three answer alike",
    schema: { type: 'string', enum: ['v1', 'v2', 'v3'] },
  },
  shortCode: { name: 'shortCode', in: 'path', required: true, description: "The short URL's code", schema: { type: 'string' } },
  tag: { name: 'tag', in: 'path', required: true, description: 'A tag', schema: { type: 'string' } },
  domain: { name: 'domain', in: 'path', required: true, description: 'A host, or DEFAULT', schema: { type: 'string' } },
};

/** The Shlink API's operations, with the scope `scopes` (web/routes.ts's SHLINK_SCOPES) name for each. */
function shlinkPaths(scopes: Readonly<Record<string, Scope>>): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const [route, [operationId, summary]] of Object.entries(SHLINK_OPERATIONS)) {
    const [method = '', path = ''] = route.split(' ');
    const scope = scopes[`${method} ${path.replace(/\{(\w+)\}/g, ':$1')}`];
    const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
    (paths[path] ??= {})[method.toLowerCase() as Method] = {
      operationId,
      summary,
      description:
        "Shlink's REST API, answered as Shlink's own OpenAPI description says (https://api-spec.shlink.io; README: Shlink's clients). " +
        (scope === undefined ? 'Needs no key.' : `Needs an API key as X-Api-Key with the scope \`${scope}\` (or \`admin\`).`),
      tags: ['shlink'],
      security: scope === undefined ? PUBLIC : [{ apiKey: [scope] }],
      parameters: names.map((name) => SHLINK_PARAMETERS[name]!),
      responses: { default: { description: "Shlink's answer; errors are Shlink's problem+json" } },
    };
  }
  return paths;
}

/**
 * The document with the scope each API route needs (web/routes.ts's API_SCOPES, keyed `METHOD /path/:param`)
 * on its operation, and the 403 of a key without it, and Shlink's API with its scopes (`shlinkScopes`). Throws
 * if a route is not in the document.
 */
export function scopedOpenApi(
  scopes: Readonly<Record<string, Scope>>,
  shlinkScopes: Readonly<Record<string, Scope>> = {},
): OpenApiDocument {
  const paths: Record<string, PathItem> = Object.fromEntries(Object.entries(OPENAPI.paths).map(([path, item]) => [path, { ...item }]));
  for (const [route, scope] of Object.entries(scopes)) {
    const [method = '', routePath = ''] = route.split(' ');
    const path = routePath.replace(/:(\w+)/g, '{$1}');
    const item = paths[path];
    const operation = item?.[method.toLowerCase() as Method];
    if (!item || !operation) throw new Error(`the OpenAPI document has no operation for ${route}`);
    item[method.toLowerCase() as Method] = {
      ...operation,
      description: [operation.description, `An API key needs the scope \`${scope}\` (or \`admin\`).`].filter(Boolean).join(' '),
      security: [{ bearer: [scope] }, { apiKey: [scope] }, { session: [] }],
      responses: { ...operation.responses, '403': response('Forbidden') },
    };
  }
  return { ...OPENAPI, paths: { ...paths, ...shlinkPaths(shlinkScopes) } };
}

/** kurz's HTTP interface: every route of web/routes.ts and the edge's redirect. */
export const OPENAPI: OpenApiDocument = openApiDocument({
  openapi: '3.1.0',
  info: {
    title: 'kurz',
    version: VERSION,
    description:
      'A self-hosted URL shortener. The JSON API under /api/v1 needs an API key (`kurz keys create`) or a logged-in session; ' +
      'a key may call only the operations of its scopes (each operation names the one it needs; `admin` grants all): ' +
      SCOPES.map((scope) => `\`${scope}\`: ${SCOPE_DOCS[scope]}`).join('; ') +
      '. ' +
      'errors are RFC 9457 problem details (application/problem+json), or a page when a browser asks; an error answered ' +
      "by the API or the pages carries the request's id in `X-Request-Id`, as kurz's log lines about it do.",
    license: { name: 'MIT', identifier: 'MIT' },
  },
  tags: [
    { name: 'links', description: 'The JSON API' },
    { name: 'users', description: "The JSON API's user management: admins only" },
    { name: 'redirect', description: 'Following a short link' },
    { name: 'pages', description: 'The HTML pages for people' },
    { name: 'system', description: 'Health checks, metrics and what crawlers ask for' },
    { name: 'yourls', description: "YOURLS' API (yourls-api.php), for the clients written for it: ShareX, browser extensions, scripts" },
    { name: 'shlink', description: "Shlink's REST API v3 (and v1, v2), for Shlink's web client and SDK" },
  ],
  security: [{ bearer: [] }, { apiKey: [] }, { session: [] }],
  paths: withLimits({
    '/api/v1/links': {
      get: linksApi({
        operationId: 'listLinks',
        summary: 'List links, newest or most visited first, a page at a time',
        query: LIST_QUERY,
        responses: {
          '200': { description: 'One page of links', content: json(schema('LinkList')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
        },
      }),
      post: linksApi({
        operationId: 'createLink',
        summary: 'Shorten a URL',
        description: 'A bare URL given again within the dedupe window returns the earlier link with 200.',
        body: LINK_CREATE,
        responses: {
          '201': {
            description: 'Created and stored on disk',
            headers: { Location: { description: "The new link's API path", schema: { type: 'string' } } },
            content: json(schema('Link')),
          },
          '200': { description: 'The earlier link of the same URL (dedupe)', content: json(schema('Link')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '409': { description: 'The alias is taken, or belonged to a deleted link', content: PROBLEM },
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/links/batch': {
      post: linksApi({
        operationId: 'createLinks',
        summary: `Shorten up to ${BATCH_MAX} URLs at once`,
        body: BATCH_CREATE,
        responses: {
          '200': { description: 'One result per entry, in order', content: json(schema('BatchResult')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/links/{code}': {
      get: linksApi({
        operationId: 'showLink',
        query: DOMAIN_QUERY,
        summary: 'One link, deleted or not',
        parameters: [parameter('code')],
        responses: {
          '200': { description: 'The link', content: json(schema('Link')) },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
      patch: linksApi({
        operationId: 'editLink',
        query: DOMAIN_QUERY,
        summary: 'Change the fields given (null clears an option); the redirect follows at once',
        parameters: [parameter('code')],
        body: LINK_EDIT,
        responses: {
          '200': { description: 'The link as stored', content: json(schema('Link')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': response('Gone'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
      delete: linksApi({
        operationId: 'deleteLink',
        query: DOMAIN_QUERY,
        summary: 'Delete a link: its code answers 410 from then on and is never handed out again',
        parameters: [parameter('code')],
        responses: {
          '204': { description: 'Deleted' },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': { description: 'Deleted already', content: PROBLEM },
        },
      }),
    },
    '/api/v1/links/{code}/rules': {
      get: linksApi({
        operationId: 'showRules',
        query: DOMAIN_QUERY,
        summary: "The link's redirect rules, as they were set",
        parameters: [parameter('code')],
        responses: {
          '200': { description: 'The rules, in order ([] for none)', content: json(schema('RuleList')) },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
      put: linksApi({
        operationId: 'setRules',
        query: DOMAIN_QUERY,
        summary: "Replace the link's redirect rules ([] clears them); the redirect of every process follows at once",
        parameters: [parameter('code')],
        body: RULES_BODY,
        responses: {
          '200': { description: 'The rules as stored', content: json(schema('RuleList')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': response('Gone'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/links/{code}/form-answers': {
      get: linksApi({
        operationId: 'exportFormAnswers',
        query: DOMAIN_QUERY,
        summary:
          "The answers visitors gave the link's form (its page before the redirect), newest first, as CSV: at, name, email, phone, text, consent; a cell that a spreadsheet would run as a formula starts with '",
        parameters: [parameter('code')],
        responses: {
          '200': { description: 'The answers', content: { 'text/csv': { schema: { type: 'string' } } } },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/links/{code}/approve': {
      post: linksApi({
        operationId: 'approveLink',
        query: DOMAIN_QUERY,
        summary: 'Approve a link waiting for review (admins only): it redirects from then on; every process drops it from its cache',
        parameters: [parameter('code')],
        responses: {
          '200': { description: 'The link as stored, review null: it redirects now', content: json(schema('Link')) },
          '401': response('Unauthorized'),
          '403': { description: "A member's own link (only an admin reviews), or a key without the scope", content: PROBLEM },
          '404': response('NotFound'),
          '409': { description: 'The link is not waiting for review: approved already, never held, or rejected', content: PROBLEM },
          '410': response('Gone'),
        },
      }),
    },
    '/api/v1/links/{code}/reject': {
      post: linksApi({
        operationId: 'rejectLink',
        query: DOMAIN_QUERY,
        summary: 'Reject a link waiting for review (admins only): it answers 410 for good and its code is never handed out again',
        parameters: [parameter('code')],
        responses: {
          '200': { description: 'The link as stored, review rejected', content: json(schema('Link')) },
          '401': response('Unauthorized'),
          '403': { description: "A member's own link (only an admin reviews), or a key without the scope", content: PROBLEM },
          '404': response('NotFound'),
          '409': { description: 'The link is not waiting for review: approved already, never held, or rejected', content: PROBLEM },
          '410': response('Gone'),
        },
      }),
    },
    '/api/v1/links/{code}/qr': {
      get: linksApi({
        operationId: 'showQrCode',
        summary: "The link's short URL as a QR code",
        parameters: [parameter('code')],
        query: withDomain(QR_QUERY),
        responses: {
          '200': {
            description: 'The QR code (error correction M), shown inline as kurz-CODE.svg or kurz-CODE.png',
            headers: {
              'Content-Disposition': { description: 'inline; filename="kurz-CODE.FORMAT"', schema: { type: 'string' } },
              'Cache-Control': { description: 'no-store, as every answer to a key or a session', schema: { type: 'string' } },
            },
            content: { 'image/svg+xml': { schema: { type: 'string' } }, 'image/png': {} },
          },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': response('Gone'),
        },
      }),
    },
    '/api/v1/links/{code}/stats': {
      get: linksApi({
        operationId: 'showLinkStats',
        summary:
          "The link's visits: humans and bots apart, unique visitors, a series and the top referrers, browsers, OS, devices, countries and languages",
        parameters: [parameter('code')],
        query: withDomain(STATS_QUERY),
        responses: {
          '200': { description: 'The figures', content: json(schema('LinkStats')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': response('Gone'),
        },
      }),
    },
    '/api/v1/links/{code}/audit': {
      get: linksApi({
        operationId: 'showLinkAudit',
        summary: "The link's audit trail: who created, edited, moved or deleted it, newest first",
        parameters: [parameter('code')],
        query: withDomain(LINK_AUDIT_QUERY),
        responses: {
          '200': { description: 'A page of entries', content: json(schema('AuditPage')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '410': response('Gone'),
        },
      }),
    },
    '/api/v1/audit': {
      get: linksApi({
        operationId: 'listAudit',
        summary: 'The audit trail: who did what to which link, key, user or domain, newest first, filtered',
        query: AUDIT_QUERY,
        responses: {
          '200': { description: 'A page of entries', content: json(schema('AuditPage')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/stats': {
      get: linksApi({
        operationId: 'showStats',
        summary: "Links created and visits per day, top links, totals: the instance's for an admin (or one owner's), a member's own",
        query: DAYS_QUERY,
        responses: {
          '200': { description: 'The figures', content: json(schema('InstanceStats')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
        },
      }),
    },
    '/api/v1/export': {
      get: linksApi({
        operationId: 'exportData',
        summary: 'Every link, or every raw visit kept, streamed as CSV or NDJSON',
        description:
          'Written a page of rows at a time, so memory stays flat however many there are. CSV cells that a spreadsheet would run as a formula start with a quote. Visits carry no client address and no user agent.',
        query: withDomain(EXPORT_QUERY),
        responses: {
          '200': {
            description: 'The export, as an attachment named kurz-WHAT.FORMAT',
            headers: { 'Content-Disposition': { description: 'attachment; filename="kurz-WHAT.FORMAT"', schema: { type: 'string' } } },
            content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } },
          },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
        },
      }),
    },
    '/api/v1/webhooks': {
      get: linksApi({
        operationId: 'listWebhooksApi',
        summary: "Your webhooks (an admin: theirs too; nobody sees another's), never their secrets",
        responses: {
          '200': {
            description: 'The hooks',
            content: json({ type: 'object', properties: { webhooks: { type: 'array', items: schema('Webhook') } } }),
          },
          '401': response('Unauthorized'),
        },
      }),
      post: linksApi({
        operationId: 'addWebhookApi',
        summary: "Add a webhook for your links' events; the answer holds its secret, this once",
        body: WEBHOOK_CREATE,
        responses: {
          '201': {
            description: 'Added, with its secret',
            headers: { Location: { description: "The new hook's API path", schema: { type: 'string' } } },
            content: json(schema('Webhook')),
          },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/webhooks/{id}': {
      patch: linksApi({
        operationId: 'editWebhookApi',
        summary: 'Pause or resume one of your webhooks',
        parameters: [parameter('webhook')],
        body: WEBHOOK_EDIT,
        responses: {
          '200': { description: 'The hook', content: json(schema('Webhook')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
      delete: linksApi({
        operationId: 'deleteWebhookApi',
        summary: 'Delete one of your webhooks and its delivery log',
        parameters: [parameter('webhook')],
        responses: { '204': { description: 'Deleted' }, '401': response('Unauthorized'), '404': response('NotFound') },
      }),
    },
    '/api/v1/webhooks/{id}/ping': {
      post: linksApi({
        operationId: 'pingWebhookApi',
        summary: 'Send one of your webhooks a signed `ping` at the next turn, retried as any delivery',
        parameters: [parameter('webhook')],
        responses: {
          '202': { description: 'Queued', content: json({ type: 'object', properties: { queued: { type: 'boolean' } } }) },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/webhooks/{id}/deliveries': {
      get: linksApi({
        operationId: 'listDeliveries',
        summary: "One of your webhooks' latest 100 deliveries, newest first: the delivery log",
        parameters: [parameter('webhook')],
        responses: {
          '200': {
            description: 'The deliveries',
            content: json({ type: 'object', properties: { deliveries: { type: 'array', items: schema('Delivery') } } }),
          },
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/domains': {
      get: linksApi({
        operationId: 'listDomains',
        summary: "Every short domain, the default (the publicUrl's host) first, with its live links",
        responses: { '200': { description: 'The domains', content: json(schema('DomainList')) }, '401': response('Unauthorized') },
      }),
      post: linksApi({
        operationId: 'addDomain',
        summary: 'Add a short domain: links may then be created on it, each domain with a code space of its own',
        body: DOMAIN_CREATE,
        responses: {
          '201': {
            description: 'Added',
            headers: { Location: { description: "The new domain's API path", schema: { type: 'string' } } },
            content: json(schema('Domain')),
          },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '409': { description: "The host is one of kurz's domains already (the publicUrl's host included)", content: PROBLEM },
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/domains/{host}': {
      get: linksApi({
        operationId: 'showDomain',
        summary: 'One domain',
        parameters: [parameter('host')],
        responses: {
          '200': { description: 'The domain', content: json(schema('Domain')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
        },
      }),
      patch: linksApi({
        operationId: 'editDomain',
        summary: "Change the fields given (null clears one); every process's redirect follows",
        parameters: [parameter('host')],
        body: DOMAIN_EDIT,
        responses: {
          '200': { description: 'The domain as stored', content: json(schema('Domain')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
      delete: linksApi({
        operationId: 'removeDomain',
        summary: 'Remove a domain no live link is on; its deleted links keep their history',
        parameters: [parameter('host')],
        responses: {
          '204': { description: 'Removed' },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '404': response('NotFound'),
          '409': { description: 'Live links are on it (move or delete them first), or it is the default domain', content: PROBLEM },
        },
      }),
    },
    '/api/v1/users': {
      get: adminApi({
        operationId: 'listUsers',
        summary: 'Every user, the first admin first, with their live links',
        responses: {
          '200': { description: 'The users', content: json(schema('UserList')) },
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
        },
      }),
      post: adminApi({
        operationId: 'addUser',
        summary: 'Add a user; the answer carries the one-time link (24 h) with which they set their password, shown this once',
        body: USER_CREATE,
        responses: {
          '201': {
            description: 'Added',
            headers: { Location: { description: "The new user's API path", schema: { type: 'string' } } },
            content: json(schema('UserInvitation')),
          },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '409': { description: 'A user has this name already, whatever its case', content: PROBLEM },
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/users/{name}': {
      get: adminApi({
        operationId: 'showUser',
        summary: 'One user',
        parameters: [parameter('name')],
        responses: {
          '200': { description: 'The user', content: json(schema('User')) },
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
        },
      }),
      patch: adminApi({
        operationId: 'editUser',
        summary: "Change a user's role or state; a disabled user's sessions end and their keys stop working",
        parameters: [parameter('name')],
        body: USER_EDIT,
        responses: {
          '200': { description: 'The user as stored', content: json(schema('User')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
          '409': { description: 'It would leave no active admin, or take your own admin role', content: PROBLEM },
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/users/{name}/reset': {
      post: adminApi({
        operationId: 'resetPassword',
        summary: 'A new one-time link (24 h) with which the user sets a new password; the old one works until then',
        parameters: [parameter('name')],
        responses: {
          '200': { description: 'The user and the link, shown this once', content: json(schema('UserInvitation')) },
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/users/{name}/handover': {
      post: adminApi({
        operationId: 'handOverLinks',
        summary: 'Hand every link of the user (deleted ones too: their figures go along) to another user',
        parameters: [parameter('name')],
        body: USER_HANDOVER,
        responses: {
          '200': { description: 'Who gave, who got, and how many links', content: json(schema('Handover')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
    },
    '/api/v1/tags': {
      get: linksApi({
        operationId: 'listTags',
        summary: 'Every tag and how many live links carry it',
        responses: { '200': { description: 'The tags', content: json(schema('TagList')) }, '401': response('Unauthorized') },
      }),
    },
    '/api/v1/tags/{tag}': {
      patch: linksApi({
        operationId: 'renameTag',
        summary: "Rename a tag on your links (an admin: everyone's), deleted ones too; an existing tag's name merges the two",
        parameters: [parameter('tag')],
        body: TAG_RENAME,
        responses: {
          '200': { description: 'The old and new names and how many links changed', content: json(schema('TagRenamed')) },
          '400': response('Invalid'),
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
          '413': response('TooLarge'),
          '415': response('UnsupportedType'),
        },
      }),
      delete: linksApi({
        operationId: 'deleteTag',
        summary: "Take a tag off your links (an admin: everyone's), deleted ones too; the links stay",
        parameters: [parameter('tag')],
        responses: {
          '200': { description: 'The tag and how many links had it', content: json(schema('TagDeleted')) },
          '401': response('Unauthorized'),
          '403': response('Forbidden'),
          '404': response('NotFound'),
        },
      }),
    },
    '/api/v1/openapi.json': {
      get: linksApi({
        operationId: 'showOpenApi',
        summary: 'This document',
        security: PUBLIC,
        responses: { '200': { description: 'The OpenAPI document', content: json(schema('OpenApi')) } },
      }),
    },
    '/{code}': {
      get: { operationId: 'redirect', ...REDIRECT },
      head: { operationId: 'checkRedirect', ...REDIRECT },
    },
    '/links/{code}/unlock': {
      post: {
        operationId: 'unlockLink',
        summary: "Give a password link's password and go on to its target",
        description:
          'Tried too often with a wrong password, by one client or by all together, a client must wait (429 with Retry-After); ' +
          'so must it while the server checks as many passwords as it may at once.',
        tags: ['redirect'],
        security: PUBLIC,
        parameters: [parameter('code')],
        requestBody: {
          required: true,
          content: Object.fromEntries(
            ['application/x-www-form-urlencoded', 'application/json'].map((type) => [
              type,
              { schema: { type: 'object', required: ['password'], properties: { password: { type: 'string' } } } },
            ]),
          ),
        },
        responses: {
          '303': seeOther('The right password: on to the target (a See Other, so the password is not re-sent; never cached)'),
          ...FORM_BODY_REFUSED,
          '401': pageOrProblem('A wrong password: the form again for a browser'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('The link was deleted, is disabled (by its owner or the blocklist), has expired or has used up its visits'),
          '429': pageOrProblem('Too many wrong passwords, or too many password checks at once; try again after Retry-After seconds'),
        },
      },
    },
    '/links/{code}/continue': {
      ...Object.fromEntries(
        (['get', 'post'] as const).map((method) => [
          method,
          {
            operationId: method === 'get' ? 'continueLink' : 'continueLinkByForm',
            summary:
              method === 'get'
                ? "An open-in-browser page's “continue here anyway”: on to what the link serves past its pages (a form page if it has one)"
                : "A notice's button or a form's submit: the form's answers checked and stored, then on to what the link serves past its pages",
            description:
              'The pass is the one the page gave (signed for this link and query, valid for an hour). The visit counts here, not when the page is shown.',
            tags: ['redirect'],
            security: PUBLIC,
            parameters: [parameter('code')],
            ...(method === 'post'
              ? {
                  requestBody: {
                    required: true,
                    content: {
                      'application/x-www-form-urlencoded': {
                        schema: {
                          type: 'object',
                          required: ['pass'],
                          properties: Object.fromEntries(
                            ['pass', 'query', 'name', 'email', 'phone', 'text', 'consent'].map((name) => [name, { type: 'string' }]),
                          ),
                        },
                      },
                    },
                  },
                }
              : {}),
            responses: {
              '303': seeOther('On to the target (never cached), counted as a visit'),
              ...(method === 'post' ? FORM_BODY_REFUSED : {}),
              '400': pageOrProblem(
                'A pass that is forged, for another link or query, or expired; or a form answer refused (the form again)',
              ),
              '404': pageOrProblem('No link has this code'),
              '410': pageOrProblem('The link was deleted, is disabled, has expired or has used up its visits'),
            },
          },
        ]),
      ),
    },
    '/links/{code}/form-answers': {
      get: adminPage({
        operationId: 'showFormAnswers',
        summary: "The answers to a link's form, newest first, 50 a page (?before=ID for older ones)",
        parameters: [parameter('code'), parameter('domain')],
        responses: { '200': page('The page'), '404': pageOrProblem('No link has this code') },
      }),
    },
    '/links/{code}/form-answers.csv': {
      get: adminPage({
        operationId: 'exportFormAnswersCsv',
        summary: "The answers to a link's form as CSV (formula-safe)",
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '200': { description: 'The answers', content: { 'text/csv': { schema: { type: 'string' } } } },
          '404': pageOrProblem('No link has this code'),
        },
      }),
    },
    '/links/{code}/form-answers/delete': {
      post: adminForm([], {
        operationId: 'deleteFormAnswers',
        summary: "Delete every answer to a link's form",
        parameters: [parameter('code'), parameter('domain')],
        responses: { '303': seeOther('To the answers page, ?deleted'), '404': pageOrProblem('No link has this code') },
      }),
    },
    '/login': {
      get: pages({
        operationId: 'showLogin',
        summary: 'The login form',
        parameters: [{ name: 'next', in: 'query', description: 'A path on kurz to go back to', schema: { type: 'string' } }],
        responses: { '200': page('The login form'), '303': seeOther('Logged in already: on to `next`') },
      }),
      post: pages({
        operationId: 'login',
        summary: 'Log in: opens a session (the session cookie) and goes on to `next`',
        requestBody: { required: true, content: form(['user', 'password', 'next'], ['user', 'password']) },
        responses: {
          '303': seeOther('Logged in'),
          '401': page('The form again, saying the user or password is wrong'),
          '403': FORM_REFUSED,
        },
      }),
    },
    '/login/sso': {
      get: pages({
        operationId: 'startSso',
        summary: 'Single sign-on (oidcIssuer set): to the OpenID provider, with PKCE, state and nonce in a 10-minute flow cookie',
        parameters: [{ name: 'next', in: 'query', description: 'A path on kurz to go back to', schema: { type: 'string' } }],
        responses: {
          '303': seeOther("To the provider's authorization endpoint"),
          '404': pageOrProblem('Single sign-on is off'),
          '503': page('The provider cannot be reached (its discovery document); try again later'),
        },
      }),
    },
    '/login/sso/callback': {
      get: pages({
        operationId: 'finishSso',
        summary: "The provider's answer: the code redeemed, the ID token checked, a session opened (the first sign-on creates the user)",
        parameters: ['code', 'state', 'error', 'error_description', 'iss'].map((name) => ({
          name,
          in: 'query' as const,
          description: `The provider's ${name}`,
          schema: { type: 'string' },
        })),
        responses: {
          '303': seeOther("Signed on: on to the flow's `next`"),
          '400': page('No flow cookie, a wrong state, an expired or replayed flow, or the provider refused the code'),
          '403': page(
            'No kurz account for this identity (oidcCreateUsers off), a disabled user, a name kurz cannot take, or the provider said access_denied',
          ),
          '404': pageOrProblem('Single sign-on is off'),
          '503': page('The provider cannot be reached'),
        },
      }),
    },
    '/account/password': {
      get: adminPage({
        operationId: 'showPasswordForm',
        summary: "The form that sets the logged-in user's password; where a session made with the generated first password is sent",
        responses: { '200': page('The form') },
      }),
      post: adminForm(['current', 'password', 'repeat'], {
        operationId: 'changePassword',
        summary:
          "Set the logged-in user's password: every session of theirs ends; for the first admin, the generated password's file is deleted",
        description:
          '`current` (the password now) is required, but not from a session made with the generated first password, nor from someone without a password. ' +
          'A wrong one counts against the account’s login limit.',
        responses: {
          '303': seeOther('To the login page'),
          '400': page('The form again: the current password is missing or wrong, the two differ, or the new one is too short or too long'),
          '429': page('The form again: too many wrong passwords for this account; wait'),
        },
      }),
    },
    '/logout': {
      post: pages({
        operationId: 'logout',
        summary: 'End the session',
        requestBody: { required: true, content: form([]) },
        responses: { '303': seeOther('To the login page'), '403': FORM_REFUSED },
      }),
    },
    '/': {
      get: pages(
        {
          operationId: 'showHome',
          summary:
            'The dashboard (the shorten form with every option, the latest links, the figures of a period: 7, 14, 30, 90 or custom days); the public form for anyone else',
          query: PAGE_PERIOD_QUERY,
          responses: {
            '200': page('The dashboard, or the public form when anonymous shortening is on'),
            '400': page('The period is malformed, backwards or longer than 366 days'),
            '303': seeOther('No session and anonymous shortening is off: to /login'),
          },
        },
        OPTIONAL_SESSION,
      ),
      post: pages(
        {
          operationId: 'createLinkFromForm',
          summary: 'Shorten a URL from the form: every option for the admin, `url`, `alias` and the UTM fields for anyone else',
          requestBody: {
            required: true,
            content: form(
              LINK_FIELDS.filter((f) => f !== 'removePassword'),
              ['url'],
            ),
          },
          responses: {
            '303': seeOther("The admin: to the link's page, /links/{code}?created or ?existing"),
            '200': page('Anyone else: the form again, showing the short URL'),
            '400': page('The form again, naming the field at fault'),
            '401': pageOrProblem('No session and anonymous shortening is off'),
            '403': page('The form expired or came from elsewhere (CSRF), or the form again: the domain is not open to this user'),
            '409': page('The form again: the alias is taken'),
          },
        },
        OPTIONAL_SESSION,
      ),
    },
    '/links': {
      get: adminPage({
        operationId: 'listLinkPages',
        summary: 'The list of links: search, tag filter, sort and paging',
        parameters: [
          { name: 'deleted', in: 'query', description: 'The code of a link just deleted, to say so', schema: { type: 'string' } },
          {
            name: 'done',
            in: 'query',
            description: 'What the bulk form just did (enabled, disabled, tagged, untagged, moved, deleted), to say so',
            schema: { type: 'string' },
          },
          { name: 'links', in: 'query', description: 'With done: how many links it changed', schema: { type: 'integer' } },
          {
            name: 'named',
            in: 'query',
            description: 'With done: the tag added or removed, or the domain moved to',
            schema: { type: 'string' },
          },
          {
            name: 'failed',
            in: 'query',
            description: 'With done: the codes it left as they were, space-separated',
            schema: { type: 'string' },
          },
          {
            name: 'select',
            in: 'query',
            description: 'all: every row of the page ticked in the bulk form (its no-JavaScript "select all")',
            schema: { type: 'string' },
          },
        ],
        query: LIST_QUERY,
        responses: { '200': page('The list'), '400': pageOrProblem('A parameter is invalid') },
      }),
      post: adminForm(['link', 'action', 'tag', 'domain', 'confirmed', 'back'], {
        operationId: 'changeLinksFromList',
        summary: `The list's bulk form: enable, disable, tag, untag, move, delete, export or compare up to ${BULK_MOST} links at once`,
        description:
          '`link` is repeated, one a selected row (its code, or HOST/CODE off the default domain); `action` is the button. ' +
          'Each link changes through its own use case (the same checks and audit entries as one by one). `delete` without ' +
          '`confirmed=yes` answers with a page that asks first; `export` answers with the CSV of the selection, in the columns ' +
          'of GET /api/v1/export (formula-safe); `compare` (two to five links) sends to /stats/compare with their codes. ' +
          '`back` is the list to return to (a /links path, filters kept).',
        responses: {
          '200': {
            description: 'The question before a deletion, or the CSV of the selection',
            content: { ...HTML, 'text/csv': { schema: { type: 'string' } } },
          },
          '303': seeOther(
            'Back to the list (`back`), ?done=…&links=N saying what was done, &failed=CODES for those left as they were; or, to compare, /stats/compare?code=…',
          ),
          '400': pageOrProblem(`No link selected, more than ${BULK_MOST}, an unknown action, a bad tag or domain`),
          '404': pageOrProblem('A selected code is none of your links: nothing was changed'),
        },
      }),
    },
    '/links/{code}': {
      get: adminPage({
        operationId: 'showLinkPage',
        summary: "A link's page with its edit form; ?created, ?existing, ?saved, ?enabled or ?disabled say what just happened",
        parameters: [parameter('code'), parameter('domain')],
        responses: { '200': page("The link's page"), '404': pageOrProblem('No link has this code') },
      }),
      post: adminForm(
        LINK_FIELDS.filter((f) => f !== 'alias'),
        {
          operationId: 'editLinkFromForm',
          summary: 'Save the edit form',
          parameters: [parameter('code'), parameter('domain')],
          responses: {
            '303': seeOther("To the link's page, ?saved"),
            '400': page('The form again, naming the field at fault'),
            '404': pageOrProblem('No link has this code'),
            '410': page('The link was deleted'),
          },
        },
      ),
    },
    '/links/{code}/state': {
      post: adminForm(['enabled'], {
        operationId: 'setLinkState',
        summary: 'Turn a link off (`enabled=false`: it answers 410) or on again (`enabled=true`)',
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '303': seeOther("To the link's page, ?enabled or ?disabled"),
          '400': pageOrProblem('enabled is not true or false'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('The link was deleted'),
        },
      }),
    },
    '/links/{code}/rules': {
      post: adminForm(['op', 'index', 'type1', 'key1', 'value1', 'type2', 'key2', 'value2', 'action', 'target'], {
        operationId: 'changeRulesForm',
        summary:
          "The link page's rule editor: `op=add` appends the rule the fields describe (no condition, one or two; a target, refuse 451 or 403, or a page: page-notice, page-form, page-open-in-browser), `op=remove`, `up` or `down` changes the rule at `index` (from 0)",
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '303': seeOther("To the link's page, at its rules"),
          '400': pageOrProblem('The rule is refused (the message beside its field) or the list changed meanwhile'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('The link was deleted'),
        },
      }),
    },
    '/links/{code}/pages': {
      post: adminForm([...PAGE_FIELDS], {
        operationId: 'changePagesForm',
        summary:
          "The link page's pages before the redirect: a notice (a message: empty for none), a form (each field off, optional or required; a consent box) and when in-app browsers are shown how to open the link in a browser",
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '303': seeOther("To the link's page, at its pages"),
          '400': pageOrProblem('A setting is refused (the message beside its field), or a rule shows the notice or form taken away'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('The link was deleted'),
        },
      }),
    },
    '/links/{code}/stats': {
      get: adminPage({
        operationId: 'showLinkStatsPage',
        summary:
          "A link's visits in a period (default the last 30 days): totals, an SVG chart by the hour (up to 3 days) or the day, the top lists with bars, the bots",
        parameters: [parameter('code'), parameter('domain')],
        query: PAGE_PERIOD_QUERY,
        responses: {
          '200': page('The page'),
          '400': pageOrProblem('The period is malformed, backwards or longer than 366 days'),
          '404': pageOrProblem('No link has this code'),
        },
      }),
    },
    '/links/{code}/stats.csv': {
      get: adminPage({
        operationId: 'exportLinkStatsCsv',
        summary: "What a link's stats page shows for the period, as CSV: section, item, metric, value (formula-safe)",
        parameters: [parameter('code'), parameter('domain')],
        query: PAGE_PERIOD_QUERY,
        responses: {
          '200': { description: 'The figures', content: { 'text/csv': { schema: { type: 'string' } } } },
          '400': pageOrProblem('The period is malformed, backwards or longer than 366 days'),
          '404': pageOrProblem('No link has this code'),
        },
      }),
    },
    '/stats/compare': {
      get: adminPage({
        operationId: 'showComparisonPage',
        summary: 'Two to five links on one line chart, with a legend and their totals; without codes, the form alone',
        parameters: [COMPARE_CODES, parameter('domain')],
        query: PAGE_PERIOD_QUERY,
        responses: {
          '200': page('The page'),
          '400': pageOrProblem('Fewer than two links, more than five, one twice, or a bad period'),
          '404': pageOrProblem("No link has one of the codes (or it is not the user's)"),
        },
      }),
    },
    '/stats/compare.csv': {
      get: adminPage({
        operationId: 'exportComparisonCsv',
        summary: "The compared links' figures as CSV, each section prefixed with the link's code (formula-safe)",
        parameters: [COMPARE_CODES, parameter('domain')],
        query: PAGE_PERIOD_QUERY,
        responses: {
          '200': { description: 'The figures', content: { 'text/csv': { schema: { type: 'string' } } } },
          '400': pageOrProblem('Fewer than two links, more than five, one twice, or a bad period'),
          '404': pageOrProblem('No link has one of the codes'),
        },
      }),
    },
    '/stats/dashboard.csv': {
      get: adminPage({
        operationId: 'exportDashboardCsv',
        summary: "The dashboard's figures for the period (and `owner`) as CSV: totals, per day, top links, domains",
        parameters: [{ name: 'owner', in: 'query', description: "Only this user's links (admins)", schema: { type: 'string' } }],
        query: PAGE_PERIOD_QUERY,
        responses: {
          '200': { description: 'The figures', content: { 'text/csv': { schema: { type: 'string' } } } },
          '400': pageOrProblem('The period is malformed, backwards or longer than 366 days'),
        },
      }),
    },
    '/links/{code}/delete': {
      get: adminPage({
        operationId: 'confirmDelete',
        summary: 'The page that asks before deleting',
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '200': page('The question'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('Deleted already'),
        },
      }),
      post: adminForm([], {
        operationId: 'deleteLinkFromForm',
        summary: 'Delete a link: its code answers 410 from then on',
        parameters: [parameter('code'), parameter('domain')],
        responses: {
          '303': seeOther('To the list, ?deleted=CODE'),
          '404': pageOrProblem('No link has this code'),
          '410': pageOrProblem('Deleted already'),
        },
      }),
    },
    '/import': {
      get: adminPage({ operationId: 'showImport', summary: 'The bulk form: one URL per line', responses: { '200': page('The form') } }),
      post: adminForm(['urls'], {
        operationId: 'importLinks',
        summary: `Shorten up to ${BATCH_MAX} URLs, one per line`,
        responses: {
          '200': page('One result per line; the lines that failed are put back in the form'),
          '400': page('The form again: no URL, or too many'),
        },
      }),
    },
    '/import/file': {
      post: pages(
        {
          operationId: 'previewFile',
          summary: 'Read a file to import (kurz, YOURLS, Shlink, Kutt, Bitly or a list of URLs) and show what would become of each line',
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: [CSRF_FIELD, 'source', 'file'],
                  properties: {
                    [CSRF_FIELD]: { type: 'string', description: 'The CSRF token of the form' },
                    source: { type: 'string', enum: [...SOURCES] },
                    map: { type: 'string', description: 'Bitly: FIELD=COLUMN,… (code, url, title, tags, createdAt, visits)' },
                    file: { type: 'string', format: 'binary' },
                  },
                },
              },
            },
          },
          responses: {
            '200': page('The first lines and what will happen to each (import, or skip and why), with the confirmation'),
            '400': page('The import page again: the file cannot be read, naming its line'),
            '401': NOT_LOGGED_IN,
            '403': FORM_REFUSED,
            '413': pageOrProblem(`The file is larger than ${sizeText(UPLOAD_LIMIT)}`),
          },
        },
        SESSION,
      ),
    },
    '/import/file/confirm': {
      post: adminForm(['source', 'map', 'fileName', 'until', 'seal', 'file'], {
        operationId: 'importFile',
        summary: 'Import the file a preview showed, once its seal holds; all or nothing',
        responses: {
          '200': page('What was imported, and each line skipped with its reason'),
          '400': page('The import page again: the seal does not hold, or the preview is more than an hour old'),
          '429': page('The import page again: over the creation limit'),
        },
      }),
    },
    '/activity': {
      get: adminPage({
        operationId: 'showActivity',
        summary: 'The audit trail: who changed which link, key, user or domain, filtered, 50 entries a page',
        query: {
          params: AUDIT_QUERY.params.pick({ user: true, action: true, from: true, to: true, cursor: true }),
          parse: AUDIT_QUERY.parse,
        },
        responses: { '200': page('The entries'), '400': page('The form again, naming the filter at fault') },
      }),
    },
    '/review': {
      get: adminPage({
        operationId: 'showReview',
        summary: "The links waiting for review (reviewNewLinks), newest first: target, title, creator, time, the blocklists' word",
        parameters: ['approved', 'rejected'].map((name) => ({
          name,
          in: 'query' as const,
          description: `The code of a link just ${name}, to say so`,
          schema: { type: 'string' },
        })),
        responses: { '200': page('The queue'), '403': pageOrProblem('For admins only') },
      }),
    },
    '/review/{code}/approve': {
      post: adminForm([], {
        operationId: 'approveLinkFromForm',
        summary: 'Approve a waiting link: it redirects from then on',
        parameters: [parameter('code')],
        responses: {
          '303': seeOther('To the queue, ?approved=CODE'),
          '403': pageOrProblem('For admins only'),
          '404': pageOrProblem('No link has this code'),
          '409': pageOrProblem('The link is not waiting for review'),
          '410': pageOrProblem('The link was deleted'),
        },
      }),
    },
    '/review/{code}/reject': {
      post: adminForm([], {
        operationId: 'rejectLinkFromForm',
        summary: 'Reject a waiting link: it answers 410 for good, its code retired',
        parameters: [parameter('code')],
        responses: {
          '303': seeOther('To the queue, ?rejected=CODE'),
          '403': pageOrProblem('For admins only'),
          '404': pageOrProblem('No link has this code'),
          '409': pageOrProblem('The link is not waiting for review'),
          '410': pageOrProblem('The link was deleted'),
        },
      }),
    },
    '/domains': {
      get: adminPage({
        operationId: 'listDomainPages',
        summary: 'The short domains with their live links, and the form to add one',
        parameters: ['added', 'saved', 'removed'].map((name) => ({
          name,
          in: 'query' as const,
          description: `The host of a domain just ${name}, to say so`,
          schema: { type: 'string' },
        })),
        responses: { '200': page('The domains') },
      }),
      post: adminForm(['host', 'scheme', 'notFoundRedirect', 'rootRedirect', 'access'], {
        operationId: 'addDomainFromForm',
        summary: 'Add a short domain',
        responses: {
          '303': seeOther('To the domains, ?added=HOST'),
          '400': page('The form again, naming the field at fault'),
          '409': page("The form again: the host is one of kurz's domains already"),
        },
      }),
    },
    '/domains/{host}': {
      get: adminPage({
        operationId: 'showDomainPage',
        summary: "A domain's edit form",
        parameters: [parameter('host')],
        responses: { '200': page('The form'), '400': pageOrProblem('Not a host name'), '404': pageOrProblem('No such domain') },
      }),
      post: adminForm(['scheme', 'notFoundRedirect', 'rootRedirect', 'access'], {
        operationId: 'editDomainFromForm',
        summary: 'Save a domain (an empty field clears it)',
        parameters: [parameter('host')],
        responses: {
          '303': seeOther('To the domains, ?saved=HOST'),
          '400': page('The form again, naming the field at fault'),
          '404': pageOrProblem('No such domain'),
        },
      }),
    },
    '/domains/{host}/remove': {
      get: adminPage({
        operationId: 'confirmRemoveDomain',
        summary: 'The page that asks before removing a domain, or says why it cannot be while links are on it',
        parameters: [parameter('host')],
        responses: {
          '200': page('The question'),
          '404': pageOrProblem('No such domain'),
          '409': pageOrProblem('The default domain cannot be removed'),
        },
      }),
      post: adminForm([], {
        operationId: 'removeDomainFromForm',
        summary: 'Remove a domain no live link is on',
        parameters: [parameter('host')],
        responses: {
          '303': seeOther('To the domains, ?removed=HOST'),
          '404': pageOrProblem('No such domain'),
          '409': pageOrProblem('Live links are on it: the page again with the reason; or it is the default domain'),
        },
      }),
    },
    '/users': {
      get: adminPage({
        operationId: 'listUserPages',
        summary: 'The users (admins only), what each may do, and the form to add one',
        parameters: ['disabled', 'active', 'admin', 'member'].map((name) => ({
          name,
          in: 'query' as const,
          description: `The name of a user just made ${name}, to say so`,
          schema: { type: 'string' },
        })),
        responses: { '200': page('The users'), '403': pageOrProblem('For admins only') },
      }),
      post: adminForm(['name', 'email', 'role'], {
        operationId: 'addUserFromForm',
        summary: 'Add a user and show their one-time link to set a password, this once',
        responses: {
          '201': page('The users, with the new one-time link'),
          '400': page('The form again, naming the field at fault'),
          '403': pageOrProblem('For admins only'),
          '409': page('The form again: the name is taken'),
        },
      }),
    },
    '/users/{name}': {
      post: adminForm(['action', 'role'], {
        operationId: 'changeUserFromForm',
        summary: 'action=role (with role), disable, enable, or reset (a new one-time link, shown this once)',
        parameters: [parameter('name')],
        responses: {
          '200': page('The users, with the new one-time link (reset)'),
          '303': seeOther('To the users, ?ROLE=NAME or ?STATE=NAME'),
          '400': page('The users, with the reason'),
          '403': pageOrProblem('For admins only'),
          '404': page('No such user'),
          '409': page('It would leave no active admin, or take your own admin role'),
        },
      }),
    },
    '/welcome/{token}': {
      get: pages({
        operationId: 'showWelcome',
        summary: 'The form a one-time link opens, to set a password',
        parameters: [parameter('token')],
        responses: { '200': page('The form'), '410': page('The link is used up or expired') },
      }),
      post: pages({
        operationId: 'acceptWelcome',
        summary: 'Set the password; the link then stops working',
        parameters: [parameter('token')],
        requestBody: { required: true, content: form(['password', 'repeat']) },
        responses: {
          '303': seeOther('To the login page'),
          '400': page('The form again: the passwords differ or are too weak'),
          '403': FORM_REFUSED,
          '410': page('The link is used up or expired'),
        },
      }),
    },
    '/keys': {
      get: adminPage({
        operationId: 'listKeys',
        summary: 'The API keys (never the keys themselves)',
        parameters: [
          { name: 'revoked', in: 'query', description: 'The name of a key just revoked, to say so', schema: { type: 'string' } },
        ],
        responses: { '200': page('The keys and the form to create one') },
      }),
      post: adminForm(['name', 'expires', ...SCOPES.map((scope) => `scope:${scope}`)], {
        operationId: 'createKey',
        summary: 'Create an API key',
        description:
          'Each ticked `scope:SCOPE` checkbox (value `true`) grants that scope; none ticked: links:read, links:write and stats:read. ' +
          '`expires` is never, 7d, 30d, 90d or 365d.',
        responses: {
          '303': seeOther('To the keys, which show the new key this once (it rides a signed cookie for a minute)'),
          '400': page('The form again: the name or the lifetime is invalid'),
          '409': page('The form again: the name is taken'),
        },
      }),
    },
    '/keys/kurz.sxcu': {
      get: adminPage({
        operationId: 'downloadUploader',
        summary: 'A ShareX custom uploader that shortens through /yourls-api.php, with YOUR-API-KEY where the key goes',
        responses: { '200': { description: 'The .sxcu file, as an attachment', content: { 'application/octet-stream': {} } } },
      }),
    },
    '/share': {
      get: adminPage({
        operationId: 'showShare',
        summary: "Shorten a page (the bookmarklet's target): with the user's share token `t` at once, else after one click",
        parameters: [
          { name: 'url', in: 'query', description: 'The page to shorten', schema: { type: 'string' } },
          { name: 'title', in: 'query', description: "The page's title", schema: { type: 'string' } },
          { name: 't', in: 'query', description: "The user's share token, which the bookmarklet carries", schema: { type: 'string' } },
        ],
        responses: {
          '200': page('The URL and title with a Shorten button'),
          '303': seeOther("To the link's page (?created or ?existing), or without a session to /login and back"),
          '400': page('The form again: the URL or title is refused'),
          '429': page('The form again: over creationRateLimit'),
        },
      }),
      post: adminForm(['url', 'title'], {
        operationId: 'shareLink',
        summary: 'Shorten the page the form names',
        responses: {
          '303': seeOther("To the link's page, ?created or ?existing"),
          '400': page('The form again: the URL or title is refused'),
          '429': page('The form again: over creationRateLimit'),
        },
      }),
    },
    '/keys/revoke': {
      get: adminPage({
        operationId: 'confirmRevoke',
        summary: 'The page that asks before revoking a key',
        parameters: [{ name: 'name', in: 'query', required: true, description: 'The live key to revoke', schema: { type: 'string' } }],
        responses: { '200': page('The question'), '404': pageOrProblem('No live key has this name') },
      }),
      post: adminForm(['name'], {
        operationId: 'revokeKey',
        summary: 'Revoke an API key: it is refused from then on',
        responses: { '303': seeOther('To the keys, ?revoked=NAME'), '404': pageOrProblem('No live key has this name') },
      }),
    },
    '/webhooks': {
      get: adminPage({
        operationId: 'listWebhooks',
        summary: 'Your webhooks (never their secrets), each with its latest deliveries, and the form to add one',
        parameters: [
          { name: 'pinged', in: 'query', description: 'A hook just sent a test, to say so', schema: { type: 'string' } },
          { name: 'deleted', in: 'query', description: 'The URL of a hook just deleted, to say so', schema: { type: 'string' } },
        ],
        responses: { '200': page('The hooks and the form to add one') },
      }),
      post: adminForm(['url', ...LINK_EVENTS.map((event) => `event:${event}`)], {
        operationId: 'addWebhook',
        summary: 'Add a webhook for your links',
        description: 'Each ticked `event:EVENT` checkbox (value `true`) asks for that event; at least one.',
        responses: {
          '303': seeOther("To the webhooks, which show the new hook's secret this once (it rides a signed cookie for a minute)"),
          '400': page('The form again: the URL is refused or no event is ticked'),
        },
      }),
    },
    '/webhooks/{id}/ping': {
      post: adminForm([], {
        operationId: 'pingWebhook',
        summary: 'Send the hook a signed `ping` at the next turn, retried as any delivery',
        parameters: [parameter('webhook')],
        responses: { '303': seeOther('To the webhooks, ?pinged=ID'), '404': pageOrProblem('You have no such webhook') },
      }),
    },
    '/webhooks/{id}/state': {
      post: adminForm(['enabled'], {
        operationId: 'setWebhookState',
        summary: 'Pause (`enabled=false`) or resume (`enabled=true`) one of your webhooks',
        parameters: [parameter('webhook')],
        responses: { '303': seeOther('To the webhooks'), '404': pageOrProblem('You have no such webhook') },
      }),
    },
    '/webhooks/{id}/delete': {
      get: adminPage({
        operationId: 'confirmDeleteWebhook',
        summary: 'The page that asks before deleting a webhook',
        parameters: [parameter('webhook')],
        responses: { '200': page('The question'), '404': pageOrProblem('You have no such webhook') },
      }),
      post: adminForm([], {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook and its delivery log',
        parameters: [parameter('webhook')],
        responses: { '303': seeOther('To the webhooks, ?deleted=URL'), '404': pageOrProblem('You have no such webhook') },
      }),
    },
    '/tags': {
      get: adminPage({
        operationId: 'listTagsPage',
        summary: "The tags of your links (an admin: everyone's) with their counts, each with a rename and a delete",
        parameters: [
          {
            name: 'renamed',
            in: 'query',
            description: 'A tag just renamed (with `to` and `links`), to say so',
            schema: { type: 'string' },
          },
          { name: 'to', in: 'query', description: 'Its new name', schema: { type: 'string' } },
          { name: 'deleted', in: 'query', description: 'A tag just deleted (with `links`), to say so', schema: { type: 'string' } },
          { name: 'links', in: 'query', description: 'How many links the change reached', schema: { type: 'string' } },
        ],
        responses: { '200': page('The tags') },
      }),
    },
    '/tags/{tag}': {
      post: adminForm(['name'], {
        operationId: 'renameTagByForm',
        summary: 'Rename a tag (as PATCH /api/v1/tags/{tag}); an existing tag’s name merges the two',
        parameters: [parameter('tag')],
        responses: {
          '303': seeOther('To the tags, saying what changed'),
          '400': page('The tags again, the error beside the row: the name is invalid or the same'),
          '404': pageOrProblem('None of your links has this tag'),
        },
      }),
    },
    '/tags/{tag}/delete': {
      get: adminPage({
        operationId: 'confirmTagDelete',
        summary: 'The page that asks before taking a tag off the links',
        parameters: [parameter('tag')],
        responses: { '200': page('The question'), '404': pageOrProblem('None of your live links has this tag') },
      }),
      post: adminForm([], {
        operationId: 'deleteTagByForm',
        summary: 'Take a tag off your links (as DELETE /api/v1/tags/{tag})',
        parameters: [parameter('tag')],
        responses: { '303': seeOther('To the tags, saying what changed'), '404': pageOrProblem('None of your links has this tag') },
      }),
    },
    '/settings': {
      get: adminPage({
        operationId: 'showSettings',
        summary: 'The effective configuration, read-only, and how to change it',
        responses: { '200': page('The settings') },
      }),
    },
    '/assets/{name}': {
      get: {
        operationId: 'showAsset',
        summary: "The pages' stylesheet (kurz.css) and script (kurz.js)",
        tags: ['system'],
        security: PUBLIC,
        parameters: [{ name: 'name', in: 'path', required: true, description: 'kurz.css or kurz.js', schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The file', content: { 'text/css': {}, 'text/javascript': {} } },
          '404': pageOrProblem('No such file'),
        },
      },
    },
    '/healthz': {
      get: {
        operationId: 'checkHealth',
        summary: 'Whether kurz and its database answer and take writes',
        tags: ['system'],
        security: PUBLIC,
        responses: {
          '200': { description: 'Healthy', content: json(schema('Health')) },
          '503': { description: 'The database does not answer, or cannot be written: `problem` says why', content: json(schema('Health')) },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'showMetrics',
        summary: "kurz's metrics in Prometheus's text format",
        description:
          'For the addresses in the setting metricsAllow (this machine by default) without a key, and from anywhere ' +
          "with the setting metricsKey as a bearer token. With --workers, every process's figures added up.",
        tags: ['system'],
        // An allowed address needs nothing; any other the metrics key (no API key or session).
        security: [{}, { metricsKey: [] }],
        responses: {
          '200': { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': pageOrProblem('A metrics key is set and was not sent, or is wrong'),
          '403': pageOrProblem('No metrics key is set and the address is not in metricsAllow'),
        },
      },
    },
    '/favicon.ico': { get: text('image/x-icon', 'showFavicon', 'The icon') },
    '/robots.txt': { get: text('text/plain', 'showRobots', 'Asks crawlers to keep out') },
    '/yourls-api.php': { get: yourlsOperation('answerYourls'), post: yourlsOperation('answerYourlsPost') },
  }),
  components: {
    schemas: {
      ...SCHEMAS,
      Link: LINK_JSON,
      LinkCreate: LINK_CREATE,
      LinkEdit: LINK_EDIT,
      Rules: RULES_BODY,
      TagRename: TAG_RENAME,
      BatchCreate: BATCH_CREATE,
      Domain: DOMAIN_JSON,
      DomainCreate: DOMAIN_CREATE,
      DomainEdit: DOMAIN_EDIT,
      User: USER_JSON,
      UserCreate: USER_CREATE,
      UserEdit: USER_EDIT,
      UserHandover: USER_HANDOVER,
      Handover: HANDOVER_JSON,
      UserInvitation: USER_INVITATION,
      Webhook: WEBHOOK_JSON,
      WebhookCreate: WEBHOOK_CREATE,
      WebhookEdit: WEBHOOK_EDIT,
      Delivery: DELIVERY_JSON,
    },
    responses: RESPONSES,
    parameters: PARAMETERS,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer KEY`' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key: `X-Api-Key: KEY`' },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: `The signed session cookie set by POST /login, named __Host-${SESSION_COOKIE} when the public URL is https; a session has every scope`,
      },
      metricsKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'The setting metricsKey, for GET /metrics only: `Authorization: Bearer KEY`',
      },
    },
  },
});
