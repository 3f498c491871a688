// The bus carries W3C trace context in NATS headers: a request made inside a span is handled
// in a server span of the same trace, child of the client span. Both sides of a declared RPC
// check it: the server refuses a request that does not match (unknown fields by name), and
// neither side lets a reply through that does not match its schema.
import { call, connectBus, serve } from "@cairn/bus";
import { CairnError, defineRpc } from "@cairn/contracts";
import { getTracer, initTracing, startSpan } from "@cairn/telemetry";
import { infraTest } from "@cairn/testing";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { expect } from "vitest";
import { z } from "zod";

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: "rpc-trace-test", exporters: [exporter] });

/** A raw request, past the client's own checks, to see what the server answers. */
async function raw(nc: Awaited<ReturnType<typeof connectBus>>, subject: string, body: string) {
  return (await nc.request(subject, body, { timeout: 5000 })).json<{
    ok: boolean;
    error?: { code: string };
  }>();
}

infraTest(
  "a NATS request continues the caller's trace and returns typed errors",
  async ({ nats, uniqueName }) => {
    const server = await connectBus({ url: nats.url, name: "server" });
    const client = await connectBus({ url: nats.url, name: "client" });
    const echo = defineRpc({
      subject: `test.${uniqueName}.echo`,
      request: z.object({ word: z.string().max(10) }).strict(),
      reply: z.object({ echoed: z.string() }),
      errors: ["not_found"],
    });
    serve(server, echo, ({ word }) => {
      if (word === "boom")
        throw new CairnError("not_found", "nothing called boom", { hint: "try another word" });
      // A handler that breaks its contract: the reply never leaves the server.
      if (word === "broken") return { echoed: 42 } as unknown as { echoed: string };
      return { echoed: word };
    });
    await server.flush();

    const reply = await startSpan(getTracer("test"), "caller", () => call(client, echo, { word: "hi" }));
    expect(reply).toEqual({ echoed: "hi" });

    const spans = exporter.getFinishedSpans();
    const caller = spans.find((s) => s.name === "caller");
    const clientSpan = spans.find((s) => s.name === `rpc ${echo.subject}` && s.kind === 2);
    const serverSpan = spans.find((s) => s.name === `rpc ${echo.subject}` && s.kind === 1);
    expect(caller && clientSpan && serverSpan).toBeTruthy();
    expect(serverSpan?.spanContext().traceId).toBe(caller?.spanContext().traceId);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);

    await expect(call(client, echo, { word: "boom" })).rejects.toMatchObject({
      code: "not_found",
      hint: "try another word",
    });
    await expect(call(client, echo, { word: "broken" })).rejects.toMatchObject({ code: "internal" });
    // The client refuses to send what the contract does not allow; the server refuses it too.
    await expect(call(client, echo, { word: 3 } as never)).rejects.toMatchObject({
      code: "validation_failed",
    });
    expect(await raw(client, echo.subject, JSON.stringify({ word: 3 }))).toMatchObject({
      ok: false,
      error: { code: "validation_failed" },
    });
    expect(await raw(client, echo.subject, JSON.stringify({ word: "x", extra: 1 }))).toMatchObject({
      ok: false,
      error: { code: "unknown_field" },
    });
    expect(await raw(client, echo.subject, JSON.stringify({ word: "far too long a word" }))).toMatchObject({
      ok: false,
      error: { code: "too_large" },
    });
    expect(await raw(client, echo.subject, "{not json")).toMatchObject({
      ok: false,
      error: { code: "validation_failed" },
    });
    const nobody = defineRpc({ ...echo, subject: `test.${uniqueName}.nobody` });
    await expect(call(client, nobody, { word: "x" }, { timeoutMs: 1000 })).rejects.toMatchObject({
      code: "unavailable",
    });
    await Promise.all([server.close(), client.close()]);
  },
);
