// A log line names its trace and span, and the tenant and agent of the work it belongs to;
// fields that would carry memory text or secrets are censored wherever a call passes them.
// With nowhere to export spans to (as here), none is recorded, and the ids still are there.
import { Writable } from "node:stream";
import {
  createLogger,
  currentTraceContext,
  getTracer,
  initTracing,
  startSpan,
  withLogFields,
} from "@cairn/telemetry";
import { expect, it } from "vitest";

initTracing({ serviceName: "log-lines-test", instrumentLibraries: false, env: {} });

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger("test", "info", stream) };
}

it("carries trace and span ids, tenant and agent inside a request", async () => {
  const { lines, logger } = capture();
  logger.info("outside");
  let ids: { traceId: string; spanId: string } | undefined;
  await withLogFields({ tenant: "acme", agent: "alice" }, () =>
    startSpan(getTracer("test"), "request", (span) => {
      ids = span.spanContext();
      logger.info({ memoryId: "m-1" }, "inside");
    }),
  );
  expect(lines[0]).toMatchObject({ service: "test", level: "info", msg: "outside" });
  expect(lines[0]).not.toHaveProperty("trace_id");
  expect(lines[0]).not.toHaveProperty("tenant");
  expect(lines[1]).toMatchObject({
    msg: "inside",
    memoryId: "m-1",
    tenant: "acme",
    agent: "alice",
    trace_id: ids?.traceId,
    span_id: ids?.spanId,
  });
});

it("records no span with nowhere to export it, yet passes the trace on", async () => {
  const seen = await startSpan(getTracer("test"), "request", (outer) =>
    startSpan(getTracer("test"), "stage", (inner) => ({
      outer: outer.isRecording(),
      inner: inner.isRecording(),
      trace: outer.spanContext().traceId,
      innerTrace: inner.spanContext().traceId,
      carried: currentTraceContext(),
    })),
  );
  expect(seen.outer).toBe(false);
  expect(seen.inner).toBe(false);
  expect(seen.trace).toMatch(/^[0-9a-f]{32}$/);
  expect(seen.innerTrace).toBe(seen.trace);
  expect(seen.carried.traceparent).toContain(seen.trace);
});

it("censors content, queries and secrets, at any depth a call is likely to use", () => {
  const { lines, logger } = capture();
  logger.info(
    {
      content: "the memory text",
      query: "what did we decide",
      token: "tok_123",
      memory: { title: "a title", content: "nested text", slot: "ops/x" },
      request: { authorization: "Bearer cairn_secret" },
    },
    "a careless call",
  );
  const line = JSON.stringify(lines[0]);
  for (const secret of [
    "the memory text",
    "what did we decide",
    "tok_123",
    "a title",
    "nested text",
    "cairn_secret",
  ])
    expect(line).not.toContain(secret);
  expect(lines[0]).toMatchObject({ memory: { slot: "ops/x" } });
});
