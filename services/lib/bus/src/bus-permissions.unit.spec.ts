// The permission lists as the server reads them: which identity may publish or subscribe on
// each subject the catalog declares. The server's own enforcement is tested against a real
// nats-server in test/foundation/bus-permissions.int.spec.ts.
import {
  backendServiceNames,
  healthSubject,
  ingestRpcs,
  maintenanceCommandRpcs,
  maintenanceRpcs,
  rankingRpcs,
  relaySubject,
  servedSubjects,
} from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { type BusIdentity, busIdentities, busInboxPrefix, busPermissions } from "./bus-permissions.ts";

/** NATS subject matching: `*` one token, `>` one or more at the end. */
function matches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i += 1) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length || (p[i] !== "*" && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const mayPublish = (identity: BusIdentity, subject: string) =>
  busPermissions(identity).publish.some((p) => matches(p, subject));
const maySubscribe = (identity: BusIdentity, subject: string) =>
  busPermissions(identity).subscribe.some((p) => matches(p, subject));

const requestSubjects = backendServiceNames.flatMap((service) =>
  servedSubjects(service).filter((s) => !s.startsWith("cairn.health.")),
);

describe("bus permissions", () => {
  it("lets only the gateway, maintenance and the operator send requests that carry a principal, and search its re-rank", () => {
    for (const identity of busIdentities) {
      const allowed = requestSubjects.filter((subject) => mayPublish(identity, subject));
      if (identity === "admin") expect(allowed, identity).toEqual(requestSubjects);
      else if (identity === "maintenance") {
        // Everything but its own requests (it does not ask itself to run a job).
        const own = Object.values(maintenanceRpcs).map((d) => d.subject);
        expect(allowed, identity).toEqual(requestSubjects.filter((s) => !own.includes(s)));
      } else if (identity === "search") {
        // The re-rank of a search's candidates, for the principal the search came with.
        expect(allowed, identity).toEqual([rankingRpcs.rerank.subject]);
      } else if (identity !== "gateway") expect(allowed, identity).toEqual([]);
    }
  });

  it("lets only the gateway and maintenance send the agents' ingest commands, and only maintenance its own", () => {
    for (const { subject } of Object.values(ingestRpcs)) {
      const senders = busIdentities.filter((identity) => mayPublish(identity, subject));
      expect(senders.sort(), subject).toEqual(["admin", "gateway", "maintenance"]);
    }
    for (const { subject } of Object.values(maintenanceCommandRpcs)) {
      const senders = busIdentities.filter((identity) => mayPublish(identity, subject));
      expect(senders.sort(), subject).toEqual(["admin", "maintenance"]);
    }
  });

  it("lets each service answer only its own subjects", () => {
    for (const service of backendServiceNames) {
      for (const subject of servedSubjects(service)) {
        const answering = busIdentities.filter((identity) => maySubscribe(identity, subject));
        expect(answering.sort(), subject).toEqual(["admin", service].sort());
      }
    }
    expect(busIdentities.filter((i) => maySubscribe(i, healthSubject("gateway"))).sort()).toEqual([
      "admin",
      "gateway",
    ]);
  });

  it("lets only ingest (the relay) publish events", () => {
    const subject = relaySubject;
    expect(busIdentities.filter((i) => mayPublish(i, subject)).sort()).toEqual(["admin", "ingest"]);
    expect(busIdentities.filter((i) => maySubscribe(i, subject))).toEqual(["admin"]);
  });

  it("gives each identity its own reply inboxes and no one else's", () => {
    for (const identity of busIdentities) {
      for (const other of busIdentities) {
        const inbox = `${busInboxPrefix(other)}.abc.1`;
        expect(maySubscribe(identity, inbox), `${identity} on ${other}'s inbox`).toBe(
          identity === other || identity === "admin",
        );
      }
      expect(maySubscribe(identity, "_INBOX.abc.1"), identity).toBe(identity === "admin");
    }
  });

  it("lets a projection service drive only its own durable consumers", () => {
    const next = (durable: string) => `$JS.API.CONSUMER.MSG.NEXT.CAIRN_EVENTS.${durable}`;
    expect(mayPublish("search", next("search-lexical"))).toBe(true);
    expect(mayPublish("search", next("ranking-keys"))).toBe(false);
    expect(mayPublish("ranking", next("ranking-keys"))).toBe(true);
    expect(mayPublish("maintenance", next("maintenance-view"))).toBe(true);
    expect(mayPublish("gateway", next("search-lexical"))).toBe(false);
    expect(mayPublish("ranking", "$JS.API.STREAM.DELETE.CAIRN_EVENTS")).toBe(false);
    expect(mayPublish("ingest", "$JS.API.STREAM.DELETE.CAIRN_EVENTS")).toBe(false);
  });
});
