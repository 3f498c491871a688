// A REST route declared once as data: the same declaration registers the Fastify route,
// validates the request (zod) and produces the route's OpenAPI operation.
import type { IngestCommandName } from "@cairn/contracts";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { CommandInput } from "../backend/cairn-backend.ts";
import type { Caller } from "../operations/caller.ts";
import type { WriteOutcome } from "../operations/create-operations.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

export type UploadSpec = { maxBytes: number; mediaTypes: readonly string[]; description: string };

export type ResponseSpec = { description: string; schema?: z.ZodType; headers?: Record<string, string> };

export type RouteContext<P, Q, B> = {
  caller: Caller;
  params: P;
  query: Q;
  body: B;
  /** The version in `If-Match`, when the route requires one. */
  ifMatch: number | undefined;
  /** The `Idempotency-Key` of a write (POST, PATCH, DELETE), when the client sent one. */
  idempotencyKey: string | undefined;
  /** Sends an ingest command as the caller, with the request's idempotency key. */
  write<N extends IngestCommandName>(name: N, input: Partial<CommandInput<N>>): Promise<WriteOutcome>;
  request: FastifyRequest;
  reply: FastifyReply;
};

export type RouteSpec<P = unknown, Q = unknown, B = unknown> = {
  method: HttpMethod;
  /** OpenAPI style: `/v1/memories/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /**
   * The route takes a file as its body instead of JSON: any media type of the list, read as
   * bytes (the handler's `body` is a Buffer) up to `maxBytes` (413 `too_large` past it).
   */
  upload?: UploadSpec;
  /** The route changes a versioned resource: `If-Match: <version>` is required (412 without). */
  ifMatch?: boolean;
  /** Default: an API key is required. */
  public?: boolean;
  /**
   * A write (POST, PATCH, DELETE) takes an `Idempotency-Key` unless this is false: a route
   * whose effect is not one ingest command says so and documents how it retries instead.
   */
  idempotent?: boolean;
  /** The success status and body. */
  success: { status: number } & ResponseSpec;
  /** Error statuses this route answers besides 401, 422, 429 and 5xx. */
  errors?: number[];
  handler: (ctx: RouteContext<P, Q, B>) => Promise<unknown>;
};

/** Keeps each route's own types while collecting them in one list. */
export function defineRoute<P, Q, B>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}
