import * as z from 'zod';
import { jsonSchemaOf, type QuerySchema } from '../core/request-schema.ts';

// An OpenAPI 3.1 document built from an API's definition: its operations, with request bodies and queries
// given as the zod schemas that validate them (core/request-schema.ts). kurz's API is one such definition
// (web/openapi.ts); another API (a compatibility API) is another, with its own document.

/** The parts of JSON Schema 2020-12, OpenAPI 3.1's dialect, that this document uses. */
export interface Schema {
  $ref?: string;
  type?: JsonType | JsonType[];
  description?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  enum?: readonly (string | number | null)[];
  const?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: 'date-time' | 'uri' | 'binary';
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
}
type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

export interface Reference {
  $ref: string;
}
export interface MediaType {
  schema?: Schema;
}
export interface Header {
  description: string;
  schema: Schema;
}
export interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, MediaType>;
}
export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  description: string;
  schema: Schema;
}
export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Overrides the document's: `[]` for a public route; an API route lists the scope a key needs. */
  security?: Record<string, string[]>[];
  parameters?: (Parameter | Reference)[];
  requestBody?: { required: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, Response | Reference>;
}
export type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
export type PathItem = Partial<Record<Method, Operation>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  tags: { name: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    parameters: Record<string, Parameter>;
    securitySchemes: Record<
      string,
      { type: 'http' | 'apiKey'; description: string; scheme?: 'bearer'; in?: 'header' | 'cookie'; name?: string }
    >;
  };
}

/** An operation as an API defines it: `query` and `body` are the schemas its handler validates with. */
export interface OperationDef extends Operation {
  /** The query string's parameters, after `parameters`. */
  query?: QuerySchema<unknown>;
  /** A JSON request body: a $ref when it is one of the components' schemas, else inline. */
  body?: z.ZodType;
}

/** An API: its document with operations as OperationDef and schemas as JSON Schema or zod. */
export interface ApiDefinition extends Omit<OpenApiDocument, 'paths' | 'components'> {
  paths: Record<string, Partial<Record<Method, OperationDef>>>;
  components: Omit<OpenApiDocument['components'], 'schemas'> & { schemas: Record<string, Schema | z.ZodType> };
}

/** The parameters of a query schema: one per property, required unless it is optional or has a default. */
function queryParameters({ params }: QuerySchema<unknown>): Parameter[] {
  return Object.entries(params.shape).map(([name, param]) => {
    const { description, ...schema } = jsonSchemaOf(param as z.ZodType) as Schema;
    const required = !(param as z.ZodType).safeParse(undefined).success;
    return { name, in: 'query', ...(required ? { required } : {}), description: description ?? name, schema };
  });
}

/** The document of `api`: zod schemas turned into JSON Schema 2020-12, a zod schema among them referred to by its name. */
export function openApiDocument(api: ApiDefinition): OpenApiDocument {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(api.components.schemas)) {
    if (!(schema instanceof z.ZodType)) continue;
    registry.add(schema, { id: name });
    names.set(schema, name);
  }
  const generated = z.toJSONSchema(registry, { io: 'input', uri: (id) => `#/components/schemas/${id}` }).schemas;
  const schemas = Object.fromEntries(
    Object.entries(api.components.schemas).map(([name, schema]) => {
      if (!(schema instanceof z.ZodType)) return [name, schema];
      const { $schema: _schema, $id: _id, ...json } = generated[name] ?? {};
      return [name, json as Schema];
    }),
  );
  const operation = ({ query, body, ...op }: OperationDef): Operation => {
    const bodySchema: Schema | undefined =
      body && (names.has(body) ? { $ref: `#/components/schemas/${names.get(body)}` } : jsonSchemaOf(body));
    return {
      ...op,
      ...(query ? { parameters: [...(op.parameters ?? []), ...queryParameters(query)] } : {}),
      ...(bodySchema ? { requestBody: { required: true, content: { 'application/json': { schema: bodySchema } } } } : {}),
    };
  };
  const paths = Object.fromEntries(
    Object.entries(api.paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, op]) => [method, operation(op)])) as PathItem,
    ]),
  );
  return { ...api, paths, components: { ...api.components, schemas } };
}
