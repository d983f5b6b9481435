// Checks a real answer against the OpenAPI description in process, with ajv (JSON Schema 2020-12,
// the dialect of OpenAPI 3.1): the status is one the operation declares, the media type is one of
// its, the body fits the schema, and every required header is there and fits its schema. Used
// beside Prism, and where Prism cannot look: it follows redirects, so it never sees a 303.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';

interface HeaderSpec {
  required?: boolean;
  schema?: Record<string, unknown>;
  $ref?: string;
}
interface ResponseSpec {
  headers?: Record<string, HeaderSpec>;
  content?: Record<string, { schema: Record<string, unknown> }>;
}
interface OperationSpec {
  operationId: string;
  responses: Record<string, ResponseSpec>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationSpec>>;
  components: { headers?: Record<string, HeaderSpec> } & Record<string, unknown>;
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  spec: OperationSpec;
}

export interface OpenApiChecker {
  /** The operation a request names (method, and a path without its query), or null. */
  operationOf(method: string, path: string): Operation | null;
  /** What is wrong with this answer to `operation`; `body` is its text. Empty when it conforms. */
  check(operation: Operation, res: Response, body: string): string[];
}

export function openApiChecker(document: OpenApiDocument): OpenApiChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const compiled = new Map<string, ValidateFunction>();
  // Schemas refer to `#/components/...`: each is compiled as the root of a document that holds them.
  const validator = (key: string, schema: Record<string, unknown>) => {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ ...schema, components: document.components });
      compiled.set(key, validate);
    }
    return validate;
  };
  const operations: (Operation & { pattern: RegExp })[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);
    for (const [method, spec] of Object.entries(item)) {
      operations.push({ operationId: spec.operationId, method: method.toUpperCase(), path, spec, pattern });
    }
  }
  const header = (spec: HeaderSpec): HeaderSpec => {
    if (!spec.$ref) return spec;
    const name = spec.$ref.replace('#/components/headers/', '');
    const found = document.components.headers?.[name];
    if (!found) throw new Error(`no header ${spec.$ref}`);
    return found;
  };

  return {
    operationOf(method, path) {
      return operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(path)) ?? null;
    },
    check(operation, res, body) {
      const where = `${operation.operationId} ${res.status}`;
      const response = operation.spec.responses[String(res.status)];
      if (!response) return [`${where}: status not declared (declared: ${Object.keys(operation.spec.responses).join(', ')})`];
      const problems: string[] = [];
      for (const [name, spec] of Object.entries(response.headers ?? {})) {
        const { required, schema } = header(spec);
        const value = res.headers.get(name);
        if (value === null) {
          if (required) problems.push(`${where}: header ${name} is missing`);
          continue;
        }
        if (schema && !validator(`header ${JSON.stringify(schema)}`, schema)(value)) {
          problems.push(`${where}: header ${name}: ${JSON.stringify(value)} does not fit ${JSON.stringify(schema)}`);
        }
      }
      const content = response.content;
      if (!content) return problems;
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      const media = content[type];
      if (!media) return [...problems, `${where}: media type ${JSON.stringify(type)} not declared (${Object.keys(content).join(', ')})`];
      let value: unknown = body;
      if (type === 'application/json') {
        try {
          value = JSON.parse(body) as unknown;
        } catch {
          return [...problems, `${where}: the body is not JSON: ${body.slice(0, 200)}`];
        }
      }
      const validate = validator(`${operation.operationId} ${res.status} ${type}`, media.schema);
      if (!validate(value)) {
        problems.push(`${where}: body: ${ajv.errorsText(validate.errors)}`);
      }
      return problems;
    },
  };
}
