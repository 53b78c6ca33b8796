import test from 'ava';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod';
import { AppError } from '../../src/core/errors.ts';
import { parseBody, ruled, type QuerySchema } from '../../src/core/request-schema.ts';
import { openApiDocument } from '../../src/http/openapi-document.ts';
import { BATCH_CREATE, LINK_CREATE, LINK_EDIT } from '../../src/web/handlers/links-api.ts';

// `domain`: the domain a link is created on (issue 24).
const KNOWN =
  'url, alias, codeLength, domain, title, note, tags, startsAt, expiresAt, maxVisits, password, redirectStatus, forwardQuery, enabled, preview, crawlable, split, pages';

/** Bodies the API refuses before any use case runs, with the message and field of today's answers. */
const REFUSED: Array<[string, z.ZodObject, unknown, string, string | undefined]> = [
  ['an array', LINK_CREATE, [], 'request body must be a JSON object', undefined],
  ['null', LINK_CREATE, null, 'request body must be a JSON object', undefined],
  ['an unknown field, before a bad one', LINK_CREATE, { title: 5, colour: 'red' }, `unknown field "colour" (known: ${KNOWN})`, 'colour'],
  ['no url', LINK_CREATE, { title: 'x' }, 'url is required', 'url'],
  [
    'a bad alias',
    LINK_CREATE,
    { url: 'https://example.com/', alias: 'a b' },
    'alias may only contain letters, digits, "-" and "_"',
    'alias',
  ],
  ['a reserved alias', LINK_CREATE, { url: 'https://example.com/', alias: 'API' }, `alias "API" is reserved for kurz's own pages`, 'alias'],
  ['a number as title', LINK_CREATE, { url: 'https://example.com/', title: 5 }, 'title must be a string', 'title'],
  [
    'a short password',
    LINK_CREATE,
    { url: 'https://example.com/', password: 'short' },
    'password must be a string of 8 to 1024 characters',
    'password',
  ],
  [
    'a status no redirect has',
    LINK_CREATE,
    { url: 'https://example.com/', redirectStatus: 200 },
    'redirectStatus must be one of 301, 302, 307, 308',
    'redirectStatus',
  ],
  [
    'the first bad field in the order of the fields',
    LINK_CREATE,
    { url: 'https://example.com/', enabled: 'yes', tags: 5 },
    'tags must be a list of strings',
    'tags',
  ],
  [
    'nothing to change',
    LINK_EDIT,
    {},
    `give at least one field to change (url, title, note, tags, startsAt, expiresAt, maxVisits, password, redirectStatus, forwardQuery, enabled, preview, crawlable, split, domain, owner, pages)`,
    undefined,
  ],
  [
    'alias on an edit',
    LINK_EDIT,
    { alias: 'x' },
    'unknown field "alias" (known: url, title, note, tags, startsAt, expiresAt, maxVisits, password, redirectStatus, forwardQuery, enabled, preview, crawlable, split, domain, owner, pages)',
    'alias',
  ],
  ['links not a list', BATCH_CREATE, { links: {} }, 'links must be a list of links', 'links'],
  ['an empty batch', BATCH_CREATE, { links: [] }, 'links must hold at least one link', 'links'],
  [
    'a batch too long',
    BATCH_CREATE,
    { links: Array.from({ length: 1001 }, () => ({})) },
    'links may hold at most 1000 links, got 1001',
    'links',
  ],
];
for (const [what, schema, body, message, field] of REFUSED) {
  test(`parseBody refuses ${what}`, (t) => {
    const err = t.throws(() => parseBody(schema, body), { instanceOf: AppError });
    t.is(err.code, 'invalid');
    t.is(err.message, message);
    t.is(err.field, field);
  });
}

test('parseBody passes the link fields on as they were sent: the use case stores them', (t) => {
  const body = { url: ' https://example.com/ ', tags: 'b, a', expiresAt: '2030-01-01T00:00:00Z', title: null, enabled: false };
  t.deepEqual(parseBody(LINK_CREATE, body), body);
  t.deepEqual(parseBody(LINK_EDIT, { maxVisits: null }), { maxVisits: null });
});

/** A small API of another shape, as a compatibility API would define it: its own document from the same mechanism. */
test('another API definition gets its own document: bodies by $ref or inline, queries as parameters', (t) => {
  const Shorten = z.strictObject({
    url: ruled(z.string().describe('The long URL'), (value) => value).nonoptional({ error: 'url is required' }),
    keyword: z.string().max(10).optional(),
  });
  const STATUS_QUERY: QuerySchema<{ format: string }> = {
    params: z.object({
      action: z.enum(['stats']).describe('What to do'),
      format: z.enum(['json', 'xml']).default('json').describe('Answer format'),
    }),
    parse: (query) => ({ format: String(query['format'] ?? 'json') }),
  };
  const doc = openApiDocument({
    openapi: '3.1.0',
    info: { title: 'other', version: '1', description: 'another API', license: { name: 'MIT', identifier: 'MIT' } },
    tags: [{ name: 'other', description: 'its operations' }],
    security: [],
    paths: {
      '/shorten': {
        post: { operationId: 'shorten', summary: 'Shorten', tags: ['other'], body: Shorten, responses: { '200': { description: 'Done' } } },
      },
      '/edit': {
        post: {
          operationId: 'edit',
          summary: 'Edit',
          tags: ['other'],
          body: z.strictObject({ title: z.string() }),
          responses: { '200': { description: 'Done' } },
        },
      },
      '/api.php': {
        get: {
          operationId: 'stats',
          summary: 'Stats',
          tags: ['other'],
          query: STATUS_QUERY,
          responses: { '200': { description: 'The figures' } },
        },
      },
    },
    components: { schemas: { Shorten }, responses: {}, parameters: {}, securitySchemes: {} },
  });
  t.deepEqual(doc.paths['/shorten']?.post?.requestBody, {
    required: true,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Shorten' } } },
  });
  t.deepEqual(doc.components.schemas['Shorten'], {
    type: 'object',
    properties: { url: { type: 'string', description: 'The long URL' }, keyword: { type: 'string', maxLength: 10 } },
    required: ['url'],
    additionalProperties: false,
  });
  t.like(doc.paths['/edit']?.post?.requestBody?.content['application/json']?.schema, { type: 'object', required: ['title'] });
  t.deepEqual(doc.paths['/api.php']?.get?.parameters, [
    { name: 'action', in: 'query', required: true, description: 'What to do', schema: { type: 'string', enum: ['stats'] } },
    { name: 'format', in: 'query', description: 'Answer format', schema: { type: 'string', enum: ['json', 'xml'], default: 'json' } },
  ]);
  t.false('body' in (doc.paths['/shorten']?.post ?? {}), 'the definition-only fields are not in the document');
  const ajv = new Ajv2020({ allowUnionTypes: true });
  ajv.addVocabulary(Object.keys(doc));
  ajv.addSchema(doc, 'other.json');
  const validate = ajv.getSchema('other.json#/components/schemas/Shorten');
  t.true(validate?.({ url: 'https://example.com/' }));
  t.false(validate?.({ keyword: 'x' }));
});
