// An OpenAPI 3.1 document from operations whose inputs and answers are zod schemas: one pass of
// zod's own z.toJSONSchema (JSON Schema 2020-12, the dialect of OpenAPI 3.1) over every schema,
// the named ones becoming components that the others refer to. An input given as a zod object
// (path, query, header, cookie) becomes one parameter per property: its name, whether it is
// required, its description and its schema all come from the object the route reads it with.
// It builds a document and nothing else: it registers no route and wraps no handler.
//
// Why not a library. @hono/zod-openapi (OpenAPIHono) registers each route itself, with its
// validators as async middleware before the handler: the status read (app.ts) would lose its
// synchronous answer, and its 400s and 415s would no longer be the BFF's own error bodies.
// hono-openapi's describeRoute() is an async middleware too, and it finds its routes by walking
// handlers that app.ts wraps. zod-openapi only builds documents, over the same z.toJSONSchema,
// but it would be a runtime dependency for what this file does in about a hundred lines.
import { z } from 'zod';

type Json = Record<string, unknown>;
export type MediaType = 'application/json' | 'text/html' | 'text/plain' | 'text/event-stream' | 'image/svg+xml' | 'image/png';
type Security = Record<string, string[]>[];

/** One answer of an operation: its headers (OpenAPI header objects or references) and its body by media type. */
export interface Answer {
  description: string;
  headers?: Record<string, Json>;
  content?: Partial<Record<MediaType, z.ZodType>>;
}

export interface Operation {
  method: 'get' | 'post';
  /** The OpenAPI path template, e.g. /api/bills/{billId}. */
  path: string;
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: Security;
  /** Each a zod object, one parameter per property. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  cookies?: z.ZodObject;
  /** A JSON body. */
  body?: { schema: z.ZodType; required: boolean; description?: string };
  responses: Record<number, Answer>;
}

/** What the document says besides its operations: info, servers, tags, and its non-schema components. */
export interface DocumentBase {
  info: Json;
  servers: Json[];
  tags: Json[];
  components: { headers: Record<string, Json>; securitySchemes: Record<string, Json> };
}

const SCHEMAS = '#/components/schemas/';
/** The ids of unnamed schemas: they never reach the document as components. */
const INLINE = '~inline-';

export function openApiDocument(base: DocumentBase, named: Record<string, z.ZodType>, operations: Operation[]): Json {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.ZodType, string>();
  for (const [id, schema] of Object.entries(named)) {
    if (ids.has(schema)) throw new Error(`${id}: the same schema is already named ${ids.get(schema)}`);
    ids.set(schema, id);
    registry.add(schema, { id });
  }
  const idOf = (schema: z.ZodType): string => {
    let id = ids.get(schema);
    if (id === undefined) {
      id = `${INLINE}${ids.size}`;
      ids.set(schema, id);
      registry.add(schema, { id });
    }
    return id;
  };
  for (const op of operations) {
    for (const part of [op.params, op.query, op.headers, op.cookies, op.body?.schema]) if (part) idOf(part);
    for (const answer of Object.values(op.responses)) for (const schema of Object.values(answer.content ?? {})) idOf(schema);
  }

  const { schemas: converted } = z.toJSONSchema(registry, { io: 'input', uri: (id) => `${SCHEMAS}${id}` });
  const json = new Map(Object.entries(converted).map(([id, schema]) => {
    const { $schema: _s, $id: _i, ...rest } = schema as Json;
    return [id, rest];
  }));
  const components = Object.fromEntries(Object.keys(named).map((id) => [id, json.get(id)!]));
  /** A named schema by reference, any other inline. */
  const schemaOf = (schema: z.ZodType): Json => {
    const id = idOf(schema);
    return id.startsWith(INLINE) ? json.get(id)! : { $ref: `${SCHEMAS}${id}` };
  };
  const parameters = (where: 'path' | 'query' | 'header' | 'cookie', object: z.ZodObject | undefined): Json[] => {
    if (!object) return [];
    const { properties = {}, required = [] } = schemaOf(object) as { properties?: Record<string, Json>; required?: string[] };
    return Object.entries(properties).map(([name, { description, ...schema }]) => ({
      name,
      in: where,
      // A path parameter is always required (OpenAPI), as a route cannot match without it.
      required: where === 'path' || required.includes(name),
      ...(description === undefined ? {} : { description }),
      schema,
    }));
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of operations) {
    const { method, path, params, query, headers, cookies, body, responses, ...described } = op;
    const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).join();
    if (Object.keys(params?.shape ?? {}).join() !== templated) throw new Error(`${op.operationId}: the path parameters are not those of ${path}`);
    const inputs = [
      ...parameters('path', params), ...parameters('header', headers), ...parameters('query', query), ...parameters('cookie', cookies),
    ];
    (paths[path] ??= {})[method] = {
      ...described,
      ...(inputs.length ? { parameters: inputs } : {}),
      ...(body ? {
        requestBody: {
          required: body.required,
          ...(body.description === undefined ? {} : { description: body.description }),
          content: { 'application/json': { schema: schemaOf(body.schema) } },
        },
      } : {}),
      responses: Object.fromEntries(Object.entries(responses).map(([status, { content, ...answer }]) => [status, {
        ...answer,
        ...(content ? { content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema: schemaOf(schema) }])) } : {}),
      }])),
    };
  }

  const document = {
    openapi: '3.1.0',
    info: base.info,
    servers: base.servers,
    tags: base.tags,
    paths,
    components: { schemas: components, ...base.components },
  };
  // An unnamed schema used inside another can only be inlined: a reference to it would point nowhere.
  const dangling = /"#\/components\/schemas\/~inline-\d+"/.exec(JSON.stringify(document));
  if (dangling) throw new Error(`the OpenAPI document refers to an unnamed schema (${dangling[0]}): name it, or do not reuse it`);
  return document;
}
