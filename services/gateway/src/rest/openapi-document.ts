// The OpenAPI 3.1 document, built from the same route declarations that register the routes,
// so the two cannot drift. Schemas come from zod (JSON Schema 2020-12, which 3.1 uses).
import { z } from "zod";
import { httpStatusOf } from "./problem.ts";
import { takesIdempotencyKey } from "./register-routes.ts";
import type { RouteSpec } from "./route-spec.ts";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "draft-2020-12",
  }) as JsonSchema;
  return rest;
}

function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  if (!schema) return {};
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  return shape ?? {};
}

const statusText: Record<number, string> = {
  400: "Bad request",
  401: "No API key, or an unknown or revoked one",
  403: "The key's role or scope does not allow this",
  404: "Not found, or not visible to this key",
  409: "Conflict: the version moved, the slot is taken, or the state does not allow it",
  412: "The `If-Match` version (or a confirmation token) is missing",
  413: "The request body is too large",
  415: "The body is not JSON",
  422: "The request does not match its schema",
  429: "Rate limited; retry after `Retry-After` seconds",
  503: "A service behind the gateway is unavailable; retry after `Retry-After` seconds",
  504: "A service behind the gateway did not answer in time; retry after `Retry-After` seconds",
};

/** The statuses whose answer says when to retry. */
const retryAfterStatuses = new Set([429, 503, 504]);

const problemSchema: JsonSchema = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", enum: Object.keys(httpStatusOf) },
    hint: { type: "string" },
    details: { type: "object" },
    instance: { type: "string" },
  },
};

export type OpenApiInfo = { title: string; version: string; description: string };

export function buildOpenApiDocument(
  routes: readonly RouteSpec[],
  info: OpenApiInfo,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters: unknown[] = [];
    for (const [name, schema] of Object.entries(objectShape(route.params))) {
      parameters.push({ name, in: "path", required: true, schema: jsonSchema(schema, "input") });
    }
    for (const [name, schema] of Object.entries(objectShape(route.query))) {
      const description = schema.description;
      parameters.push({
        name,
        in: "query",
        required: !schema.safeParse(undefined).success,
        schema: jsonSchema(schema, "input"),
        ...(description ? { description } : {}),
      });
    }
    const isWrite = takesIdempotencyKey(route);
    if (isWrite) {
      parameters.push({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Makes a retry safe: a request repeated with the same key (1-200 visible ASCII characters, e.g. a UUID) " +
          "answers what the first one did and writes nothing again; the same key with another request is `409 idempotency_conflict`",
        schema: { type: "string", minLength: 1, maxLength: 200 },
      });
    }
    if (route.ifMatch) {
      parameters.push({
        name: "If-Match",
        in: "header",
        required: true,
        description: 'The version the change applies to (the ETag of the GET), e.g. `"3"`',
        schema: { type: "string" },
      });
    }
    const errorStatuses = new Set([
      401,
      422,
      429,
      503,
      504,
      ...(isWrite ? [409] : []),
      ...(route.ifMatch ? [409, 412] : []),
      ...(route.errors ?? []),
    ]);
    if (route.public) {
      errorStatuses.delete(401);
      errorStatuses.delete(429);
    }
    if (route.body) {
      errorStatuses.add(413);
      errorStatuses.add(415);
    }
    // A file of any media type is read (its bytes say what it is): too large is the only refusal.
    if (route.upload) errorStatuses.add(413);
    const responses: Record<string, unknown> = {
      [String(route.success.status)]: {
        description: route.success.description,
        ...(route.success.headers
          ? {
              headers: Object.fromEntries(
                Object.entries(route.success.headers).map(([h, d]) => [
                  h,
                  { description: d, schema: { type: "string" } },
                ]),
              ),
            }
          : {}),
        ...(route.success.schema
          ? { content: { "application/json": { schema: jsonSchema(route.success.schema, "output") } } }
          : {}),
      },
    };
    for (const status of [...errorStatuses].sort()) {
      responses[String(status)] = {
        description: statusText[status] ?? "Error",
        ...(retryAfterStatuses.has(status)
          ? { headers: { "Retry-After": { description: "seconds to wait", schema: { type: "integer" } } } }
          : {}),
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      };
    }
    const methods = paths[route.path] ?? {};
    paths[route.path] = methods;
    methods[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      ...(route.public ? { security: [] } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.upload
        ? {
            requestBody: {
              required: true,
              description: route.upload.description,
              content: Object.fromEntries(
                route.upload.mediaTypes.map((type) => [
                  type,
                  { schema: { type: "string", contentMediaType: type } },
                ]),
              ),
            },
          }
        : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchema(route.body, "input") } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/" }],
    security: [{ apiKey: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "A Cairn API key (`cairn_…`)" },
      },
      schemas: { Problem: problemSchema },
    },
  };
}
