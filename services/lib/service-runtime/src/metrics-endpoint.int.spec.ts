import { getMeter } from "@cairn/telemetry";
import { freePort, infraTest } from "@cairn/testing";
import { expect } from "vitest";
import { startService } from "./run-service.ts";

infraTest("a service serves its metrics in the Prometheus format at /metrics", async ({ nats }) => {
  const port = await freePort();
  const handle = await startService(
    { name: "ranking", start: async () => ({}) },
    { CAIRN_NATS_URL: nats.url, CAIRN_METRICS_PORT: String(port), CAIRN_LOG_LEVEL: "silent" },
  );
  try {
    getMeter().createCounter("cairn_probe_checks").add(2, { outcome: "ok" });
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toMatch(/^cairn_probe_checks_total\{outcome="ok".*\} 2$/m);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await handle.health()).ok).toBe(true);
  } finally {
    await handle.stop();
  }
  await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
});
