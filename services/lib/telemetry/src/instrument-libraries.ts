// Auto-instrumentation of `pg`, `ioredis` and Node's HTTP server and client.
//
// How it is loaded, and why this way: the OpenTelemetry instrumentations patch a library
// when it is loaded through Node's CommonJS `require` (require-in-the-middle). Cairn's
// services are ES modules, and an `import pg from "pg"` does not go through `require`, so
// the hook alone never sees `pg`'s or `ioredis`'s entry point (measured on Node 24: only
// `pg`'s internal files, which it `require`s itself, were patched; `ioredis` and `node:http`
// not at all). Instead of an ESM loader hook (`node --import` with import-in-the-middle at
// every launch point: compose, scripts, tests, vitest workers), the instrumented modules are
// then `require`d once more here. Node keeps one instance of a CommonJS module for `import`
// and `require` alike, and the instrumentations patch prototypes in place (`Client.prototype
// .query`, `Redis.prototype.sendCommand`, `Server.prototype.emit`), so every client, pool and
// server of the process is traced, including ones created before this ran. Nothing to add to
// `node services/<x>/src/main.ts`; it works in-process under vitest too.
//
// What they record: pg and ioredis spans only under an existing span (a request, a
// projection's handling) so background polling does not make a trace per query; statements
// are the SQL text with placeholders (never the values); a Redis command is recorded by name
// and argument count only, since arguments carry memory text. HTTP server spans drop the
// query string's values (`q`, `task`, `token` carry text and secrets).
import { createRequire } from "node:module";
import { createNoopMeter, type MeterProvider, type TracerProvider } from "@opentelemetry/api";
import { type Instrumentation, registerInstrumentations } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";

/** Paths that are scraped or probed all the time: no span for them. */
const untracedPaths = new Set(["/metrics", "/healthz"]);

/** `a=1&b=2` → `a=REDACTED&b=REDACTED`: which parameters came, not what they said. */
export function redactQuery(query: string): string {
  return query
    .split("&")
    .filter(Boolean)
    .map((pair) => `${pair.split("=", 1)[0]}=REDACTED`)
    .join("&");
}

/** `FT.SEARCH [4 args]`: the command, never its arguments (document text, queries, values). */
export function redisStatement(command: string, args: readonly unknown[]): string {
  return args.length > 0 ? `${command} [${args.length} args]` : command;
}

// Instrumentations record no metrics of their own: every Cairn metric is named `cairn_*`.
const noMeters: MeterProvider = { getMeter: () => createNoopMeter() };

let instrumentations: Instrumentation[] | undefined;

/** Loads the instrumented modules through `require`, so the hooks patch the shared instances. */
function patchLoadedModules(): void {
  const require = createRequire(import.meta.url);
  require("node:http");
  require("node:https");
  require("ioredis");
  require("pg");
  // pg-pool is pg's own dependency: resolve it from where pg is.
  createRequire(require.resolve("pg"))("pg-pool");
}

/**
 * Turns on the pg, ioredis and HTTP instrumentations once per process and points them at
 * `tracerProvider` (again on every call: tests set up tracing more than once).
 */
export function instrumentLibraries(tracerProvider: TracerProvider): void {
  if (!instrumentations) {
    instrumentations = [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => untracedPaths.has((request.url ?? "").split("?", 1)[0] ?? ""),
        startIncomingSpanHook: (request) => {
          const query = (request.url ?? "").split("?")[1];
          return query ? { "url.query": redactQuery(query) } : {};
        },
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisStatement }),
    ];
    registerInstrumentations({ instrumentations, tracerProvider, meterProvider: noMeters });
    patchLoadedModules();
  }
  for (const instrumentation of instrumentations) {
    instrumentation.setTracerProvider(tracerProvider);
    instrumentation.setMeterProvider(noMeters);
  }
}
