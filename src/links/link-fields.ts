import * as z from 'zod';
import { orNull, jsonSchemaOf, ruled } from '../core/request-schema.ts';
import { RESERVED_PATHS } from './reserved-paths.ts';
import { checkAlias, checkCodeLength, MAX_CODE_CHARS, MIN_ASKED_LENGTH } from './alias-rules.ts';
import { PREVIEW_LIMITS } from './preview.ts';
import { LIMITS, OPTION_RULES, REDIRECT_STATUSES, type OptionField } from './link-options.ts';

// The one list of the fields a link is created and edited with, under the API's names (the forms and the
// CLI translate theirs into these): each field's form for the OpenAPI document, checked by its owner's rule.
// The fields pass as they were sent; the use cases (create.ts, manage.ts) apply the same rules as they store.

/** Passes a value on unchanged once `rule` accepts it. */
const checkedBy =
  (rule: (value: unknown) => unknown) =>
  (value: unknown): unknown => {
    rule(value);
    return value;
  };

/** A tag as stored: links/link-options.ts's parseTags decides. */
export const TAG = z.string().min(1).max(LIMITS.tag).describe('Letters, digits, spaces and _ . : / + -, starting with a letter or digit');

/** The target. Its rules depend on the instance's settings (links/url-rules.ts), so the use case checks it. */
export const URL_FIELD = ruled(z.string().describe('An absolute http or https URL'), (value) => value);

/** A code of one's own (links/alias-rules.ts). */
export const ALIAS_FIELD = ruled(
  z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .describe("A code of one's own: 1 to 64 letters, digits, - and _, none of kurz's own paths"),
  checkedBy((value) => checkAlias(value, RESERVED_PATHS)),
);

/** The length of a link's generated code (links/alias-rules.ts); absent: the instance's `codeLength`. */
export const CODE_LENGTH_FIELD = ruled(
  z
    .int()
    .min(MIN_ASKED_LENGTH)
    .max(MAX_CODE_CHARS)
    .describe(
      "The generated code's length instead of the instance's codeLength: the id's own code when it has that length, else a random one; not with alias",
    ),
  checkedBy(checkCodeLength),
);

/** The domain a link is created on: a host (the domains' registry decides, as the link is stored); absent: the default domain. */
export const DOMAIN_FIELD = ruled(
  z
    .string()
    .describe(
      "A host of one of kurz's domains (GET /api/v1/domains); absent: the default domain (the publicUrl's host). 403 when the domain is not open to the user",
    ),
  (value) => value,
);

/** A link's social preview (links/preview.ts decides): each part optional, trimmed, empty as none. */
export const PREVIEW = z
  .strictObject({
    title: z.string().max(PREVIEW_LIMITS.title).nullable().optional().describe('og:title; one line'),
    description: z.string().max(PREVIEW_LIMITS.description).nullable().optional().describe('og:description'),
    image: z
      .string()
      .max(PREVIEW_LIMITS.image)
      .meta({ format: 'uri', description: 'og:image: an absolute http or https URL' })
      .nullable()
      .optional(),
  })
  .describe('The social preview: Open Graph and Twitter card tags');

/** Every option field (links/link-options.ts's OPTION_RULES decide); null clears one. */
export const OPTION_SCHEMAS = {
  title: ruled(
    orNull(jsonSchemaOf(z.string().max(LIMITS.title).describe('One line; an empty one clears it'))),
    checkedBy(OPTION_RULES.title),
  ),
  note: ruled(orNull(jsonSchemaOf(z.string().max(LIMITS.note))), checkedBy(OPTION_RULES.note)),
  tags: ruled(
    z
      .union([z.array(TAG).max(LIMITS.tags), z.string(), z.null()])
      .describe('A list, or one comma-separated string; stored trimmed, unique and sorted'),
    checkedBy(OPTION_RULES.tags),
  ),
  startsAt: ruled(
    orNull(
      jsonSchemaOf(
        z.string().meta({
          format: 'date-time',
          description: 'An RFC 3339 time with an offset, before expiresAt; until then the code answers 404 as one no link has',
        }),
      ),
    ),
    checkedBy(OPTION_RULES.startsAt),
  ),
  expiresAt: ruled(
    orNull(
      jsonSchemaOf(
        z
          .string()
          .meta({ format: 'date-time', description: 'An RFC 3339 time with an offset, in the future; from then on the link answers 410' }),
      ),
    ),
    checkedBy(OPTION_RULES.expiresAt),
  ),
  maxVisits: ruled(
    orNull(jsonSchemaOf(z.int().min(1).max(LIMITS.maxVisits).describe('Visits allowed in all; then 410'))),
    checkedBy(OPTION_RULES.maxVisits),
  ),
  password: ruled(
    orNull(
      jsonSchemaOf(
        z
          .string()
          .min(LIMITS.passwordMin)
          .max(LIMITS.password)
          .describe(
            `At least ${LIMITS.passwordMin} characters: visitors must give it first (POST /links/{code}/unlock); never shown again`,
          ),
      ),
    ),
    checkedBy(OPTION_RULES.password),
  ),
  redirectStatus: ruled(
    { type: ['integer', 'null'], enum: [...REDIRECT_STATUSES, null], description: "null: the instance's setting" },
    checkedBy(OPTION_RULES.redirectStatus),
  ),
  forwardQuery: ruled(
    orNull(jsonSchemaOf(z.boolean().describe("Append the visitor's query string to the target; null: the instance's setting"))),
    checkedBy(OPTION_RULES.forwardQuery),
  ),
  enabled: ruled(z.boolean().describe('A disabled link answers 410 until enabled again'), checkedBy(OPTION_RULES.enabled)),
  preview: ruled(
    { ...orNull(jsonSchemaOf(PREVIEW)), description: 'Link-preview bots get this card instead of the redirect; null clears it' },
    checkedBy(OPTION_RULES.preview),
  ),
  crawlable: ruled(
    z.boolean().describe('robots.txt allows its short URL (every other path is disallowed)'),
    checkedBy(OPTION_RULES.crawlable),
  ),
} satisfies Record<OptionField, z.ZodType>;

/**
 * A link's own A/B split: 2 to 20 variants `{url, weight, paused?}` (rules/rule.ts's parseSplit decides, in
 * the use case, naming `split[i].field`); null removes it. The document's `Variant` is written beside `Rule`.
 */
export const SPLIT_FIELD = z
  .unknown()
  .optional()
  .meta({
    type: ['array', 'null'],
    minItems: 2,
    maxItems: 20,
    items: { $ref: '#/components/schemas/Variant' },
    description:
      "An A/B split: redirects go to one of these variants instead of url (which stays the link's fallback and display target), " +
      "drawn from the visitor's daily hash (the one that counts unique visitors), so a visitor keeps one variant for the day; null removes it",
  });
