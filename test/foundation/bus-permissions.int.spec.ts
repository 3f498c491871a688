// The authenticated bus against a real nats-server with the generated authorization: a client
// without credentials, or with a key the server does not know, is refused; a service's
// credentials cannot send an ingest command, forge an event, or subscribe where they may not
// (another service's requests, the event subjects, another identity's reply inboxes).
import {
  type BusAuth,
  type BusIdentity,
  busInboxPrefix,
  connectBus,
  createBusKey,
  generateBusAuth,
} from "@cairn/bus";
import { ingestRpcs, maintenanceCommandRpcs, relaySubject } from "@cairn/contracts";
import { type NatsHandle, startNats } from "@cairn/testing";
import { errors, type Msg, type NatsConnection, type Subscription } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let nats: NatsHandle;
let auth: BusAuth;
const open: NatsConnection[] = [];

async function as(identity: BusIdentity): Promise<NatsConnection> {
  const nc = await connectBus({
    url: nats.url,
    name: `permissions-test-${identity}`,
    credentials: auth.credentials[identity],
    connectTimeoutMs: 5000,
  });
  open.push(nc);
  return nc;
}

/** Collects what a subscription receives; `error` is set when the server refuses it. */
function collect(nc: NatsConnection, subject: string) {
  const received: Msg[] = [];
  const state: { error?: Error; sub?: Subscription } = {};
  state.sub = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) state.error = err;
      else received.push(msg);
    },
  });
  return { received, state };
}

/** Resolves once `check` holds; every wait here is bounded by a round trip to the server. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i += 1) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`not seen: ${what}`);
}

beforeAll(async () => {
  auth = generateBusAuth();
  nats = await startNats({ authorization: auth.config });
});

afterAll(async () => {
  await Promise.all(open.map((nc) => nc.close().catch(() => undefined)));
  await nats?.stop();
});

describe("a client without valid credentials", () => {
  it("is refused without credentials", async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toBeInstanceOf(
      errors.AuthorizationError,
    );
    await expect(
      connectBus({ url: nats.url, name: "anonymous", credentials: null, connectTimeoutMs: 3000 }),
    ).rejects.toThrow(/refused a client without credentials/);
  });

  it("is refused with a key the server does not know", async () => {
    const stranger = { user: "gateway", seed: createBusKey().seed };
    await expect(
      connectBus({ url: nats.url, name: "stranger", credentials: stranger, connectTimeoutMs: 3000 }),
    ).rejects.toThrow(/refused the bus identity gateway/);
  });

  it("connects with each identity's own credentials", async () => {
    for (const identity of Object.keys(auth.credentials) as BusIdentity[]) {
      const nc = await as(identity);
      await nc.flush();
      expect(nc.isClosed(), identity).toBe(false);
    }
  });
});

describe("a service's credentials", () => {
  const create = ingestRpcs["memory.create"].subject;

  it("reach ingest from the gateway and maintenance, never from search, ranking or ingest", async () => {
    const ingest = await as("ingest");
    const commands = collect(ingest, create);
    await ingest.flush();

    for (const identity of ["search", "ranking", "ingest"] as const) {
      const nc = await as(identity);
      await expect(
        nc.request(create, JSON.stringify({ forged: identity }), { timeout: 3000 }),
      ).rejects.toThrow(/permission/i);
    }
    // What the server routed before these is delivered before them: had a forged command got
    // through, it would be among what arrived by the time the allowed ones have.
    for (const identity of ["gateway", "maintenance"] as const) {
      const nc = await as(identity);
      nc.publish(create, JSON.stringify({ from: identity }));
      await nc.flush();
    }
    await until(() => commands.received.length >= 2, "the gateway's and maintenance's commands");
    expect(commands.received.map((m) => m.json<{ from?: string }>().from).sort()).toEqual([
      "gateway",
      "maintenance",
    ]);
    expect(commands.state.error).toBeUndefined();
  });

  it("keep the maintenance commands to maintenance", async () => {
    const gateway = await as("gateway");
    await expect(
      gateway.request(maintenanceCommandRpcs["memory.purge"].subject, "{}", { timeout: 3000 }),
    ).rejects.toThrow(/permission/i);
  });

  it("cannot subscribe to another service's requests, the events or another identity's replies", async () => {
    const ranking = await as("ranking");
    const refused = [create, relaySubject, "_INBOX.>"].concat(`${busInboxPrefix("gateway")}.>`);
    const attempts = refused.map((subject) => ({ subject, ...collect(ranking, subject) }));
    await ranking.flush();
    for (const attempt of attempts) {
      await until(() => attempt.state.error !== undefined, `refusal of ${attempt.subject}`);
      expect(attempt.state.error, attempt.subject).toBeInstanceOf(errors.PermissionViolationError);
    }
  });

  it("cannot forge events: only ingest publishes on cairn.evt", async () => {
    const gateway = await as("gateway");
    const subject = relaySubject;
    const permissionErrors: Error[] = [];
    void (async () => {
      for await (const status of gateway.status()) {
        if (status.type === "error") permissionErrors.push(status.error);
      }
    })();
    gateway.publish(subject, "{}");
    await gateway.flush();
    await until(() => permissionErrors.length > 0, "the publish refused");
    expect(permissionErrors[0]).toBeInstanceOf(errors.PermissionViolationError);
  });
});
