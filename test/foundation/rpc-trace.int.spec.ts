// The bus carries W3C trace context in NATS headers: a request made inside a span is
// handled in a server span of the same trace, child of the client span.
import { connectBus, requestRpc, serveRpc } from "@cairn/bus";
import { CairnError } from "@cairn/contracts";
import { getTracer, initTracing, startSpan } from "@cairn/telemetry";
import { infraTest } from "@cairn/testing";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { expect } from "vitest";
import { z } from "zod";

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: "rpc-trace-test", exporters: [exporter] });

infraTest(
  "a NATS request continues the caller's trace and returns typed errors",
  async ({ nats, uniqueName }) => {
    const server = await connectBus({ url: nats.url, name: "server" });
    const client = await connectBus({ url: nats.url, name: "client" });
    const subject = `test.${uniqueName}.echo`;
    serveRpc(server, {
      subject,
      schema: z.object({ word: z.string() }).strict(),
      handler: ({ word }) => {
        if (word === "boom")
          throw new CairnError("not_found", "nothing called boom", { hint: "try another word" });
        return { echoed: word };
      },
    });
    await server.flush();

    const reply = await startSpan(getTracer("test"), "caller", () =>
      requestRpc(client, subject, { word: "hi" }),
    );
    expect(reply).toEqual({ echoed: "hi" });

    const spans = exporter.getFinishedSpans();
    const caller = spans.find((s) => s.name === "caller");
    const clientSpan = spans.find((s) => s.name === `rpc ${subject}` && s.kind === 2);
    const serverSpan = spans.find((s) => s.name === `rpc ${subject}` && s.kind === 1);
    expect(caller && clientSpan && serverSpan).toBeTruthy();
    expect(serverSpan?.spanContext().traceId).toBe(caller?.spanContext().traceId);
    expect(clientSpan?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);

    await expect(requestRpc(client, subject, { word: "boom" })).rejects.toMatchObject({
      code: "not_found",
      hint: "try another word",
    });
    await expect(requestRpc(client, subject, { word: 3 })).rejects.toMatchObject({
      code: "validation_failed",
    });
    await expect(requestRpc(client, subject, { word: "x", extra: 1 })).rejects.toMatchObject({
      code: "validation_failed",
    });
    await expect(
      requestRpc(client, `test.${uniqueName}.nobody`, {}, { timeoutMs: 1000 }),
    ).rejects.toMatchObject({
      code: "unavailable",
    });
    await Promise.all([server.close(), client.close()]);
  },
);
