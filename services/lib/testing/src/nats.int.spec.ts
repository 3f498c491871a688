import { readFile } from "node:fs/promises";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, test } from "vitest";
import { freePort } from "./free-port.ts";
import { infraTest } from "./infra-test.ts";
import { startNats } from "./nats.ts";
import { waitFor } from "./wait-for.ts";

/** [major, minor] of a "2.10.27"-style version; NaN parts when it is not one. */
function majorMinor(version: string | undefined): [number, number] {
  const [major, minor] = (version ?? "").split(".").map(Number);
  return [major ?? Number.NaN, minor ?? Number.NaN];
}

describe("startNats", () => {
  infraTest("runs nats-server 2.10 or later (JetStream's sync_interval needs it)", async ({ nats }) => {
    const nc = await connect({ servers: nats.url });
    try {
      const [major, minor] = majorMinor(nc.info?.version);
      expect(major * 1000 + minor, `server version ${nc.info?.version}`).toBeGreaterThanOrEqual(2010);
      expect(nc.info?.jetstream).toBe(true);
    } finally {
      await nc.close();
    }
  });

  test("JetStream fsyncs every write (sync_interval: always)", async () => {
    // Monitoring is off in the fixture; this server alone exposes /varz, which shows the
    // JetStream configuration the server is actually running with.
    const monitorPort = await freePort();
    await using nats = await startNats({ extraArgs: ["-m", String(monitorPort)] });
    expect(await readFile(nats.configFile, "utf8")).toMatch(
      /jetstream\s*\{[^}]*sync_interval:\s*always[^}]*\}/,
    );

    const response = await fetch(`http://${nats.host}:${monitorPort}/varz`);
    expect(response.status).toBe(200);
    const varz = (await response.json()) as {
      version: string;
      jetstream?: { config?: { sync_always?: boolean; store_dir?: string } };
    };
    const [major, minor] = majorMinor(varz.version);
    expect(major * 1000 + minor, `server version ${varz.version}`).toBeGreaterThanOrEqual(2010);
    expect(varz.jetstream?.config?.sync_always).toBe(true);
    expect(varz.jetstream?.config?.store_dir?.startsWith(nats.storeDir)).toBe(true);
  });

  infraTest("answers with JetStream enabled", async ({ nats, uniqueName }) => {
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = `S_${uniqueName}`;
      await jsm.streams.add({ name: stream, subjects: [`${uniqueName}.>`] });
      const ack = await jetstream(nc).publish(`${uniqueName}.hello`, "hi");
      expect(ack.stream).toBe(stream);
      expect((await jsm.streams.info(stream)).state.messages).toBe(1);
    } finally {
      await nc.close();
    }
  });

  test("a client reconnects after kill -9 and restart, and JetStream streams survive", async () => {
    await using nats = await startNats();
    const nc = await connect({
      servers: nats.url,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 100,
    });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: "EVENTS", subjects: ["events.>"] });
      await jetstream(nc).publish("events.one", "1");
      const portBefore = nats.port;
      let reconnects = 0;
      (async () => {
        for await (const status of nc.status()) if (status.type === "reconnect") reconnects += 1;
      })();

      await nats.kill();
      await nats.restart();
      expect(nats.port).toBe(portBefore);

      // A request sent while disconnected can be lost (it times out after 5 s), so wait for
      // the client to be back before asking.
      await waitFor(() => reconnects > 0, { timeoutMs: 5000, description: "the client to reconnect" });
      const info = await jsm.streams.info("EVENTS");
      expect(info.state.messages).toBe(1);
      expect(nc.isClosed()).toBe(false);
      const ack = await jetstream(nc).publish("events.two", "2");
      expect(ack.seq).toBe(2);
    } finally {
      await nc.close();
    }
  });
});
