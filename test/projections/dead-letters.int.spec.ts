// An event a projection cannot apply, for each of the five: it is retried with a backoff that
// grows with its attempts, then set aside as a dead letter with the reason, and the events
// after it apply. The doctor reports it; once the cause is gone, repair retries it and the
// read model holds it. The failure is injected around each real projection (its store is up:
// this is the event's failure, not an outage).

import { call } from "@cairn/bus";
import {
  type DeadLetterRecord,
  type DecodedEvent,
  type ProjectionName,
  projectionNames,
  projectionRpcs,
} from "@cairn/contracts";
import type { Projection } from "@cairn/projection-runtime";
import { waitFor } from "@cairn/testing";
import { expect } from "vitest";
import { forEachProjection, waitForProjectionsAt } from "../helpers/projection-hosts.ts";
import { type Cairn, cairnTest } from "../maintenance/maintenance-harness.ts";

const poisonSlot = "ops/unstorable";
const retry = { baseMs: 40, maxMs: 2000, maxAttempts: 4 };

/** Whether the fault is on, and when each projection tried the poisoned event alone. */
const fault = { on: true, attempts: new Map<ProjectionName, number[]>() };

const poisoned = (events: readonly DecodedEvent[]) =>
  events.some((e) => e.type === "memory.recorded" && (e.data as { slot?: string }).slot === poisonSlot);

function faulty(projection: Projection): Projection {
  const refuse = () => new Error(`${projection.name} cannot store this memory (injected fault)`);
  return {
    ...projection,
    async apply(batch) {
      if (fault.on && poisoned(batch.events)) {
        if (batch.events.length === 1) {
          const times = fault.attempts.get(projection.name) ?? [];
          times.push(performance.now());
          fault.attempts.set(projection.name, times);
        }
        throw refuse();
      }
      return projection.apply(batch);
    },
    async repair(generation, events) {
      if (fault.on && poisoned(events)) throw refuse();
      return projection.repair(generation, events);
    },
  };
}

const envOf = (prefix: string) => ({
  [`CAIRN_${prefix}_RETRY_BASE_MS`]: String(retry.baseMs),
  [`CAIRN_${prefix}_RETRY_MAX_MS`]: String(retry.maxMs),
  [`CAIRN_${prefix}_MAX_ATTEMPTS`]: String(retry.maxAttempts),
});

const test = cairnTest({
  env: { ...envOf("SEARCH"), ...envOf("RANKING"), ...envOf("MAINTENANCE") },
  services: {
    search: { decorateProjection: faulty },
    ranking: { decorateProjection: faulty },
    maintenance: { decorateProjection: faulty },
  },
});

/** Each projection's live generation as text, to look for a memory's id in it. */
async function liveSnapshots(cairn: Cairn): Promise<Map<ProjectionName, string>> {
  const out = new Map<ProjectionName, string>();
  await forEachProjection(cairn.env, async (projection, name) => {
    out.set(
      name,
      JSON.stringify(await projection.snapshot((await projection.generations.active()) as number)),
    );
  });
  return out;
}

async function openDeadLetters(cairn: Cairn): Promise<DeadLetterRecord[]> {
  const all: DeadLetterRecord[] = [];
  for (const service of ["search", "ranking", "maintenance"] as const) {
    const reply = await call(cairn.nc, projectionRpcs(service).deadLetters, { status: "open" });
    all.push(...reply.deadLetters);
  }
  return all.sort((a, b) => projectionNames.indexOf(a.projection) - projectionNames.indexOf(b.projection));
}

test("an event no projection can apply is retried with growing backoff, dead-lettered, reported and repaired", async ({
  cairn,
}) => {
  const before = await cairn.create({
    slot: "ops/before",
    content: "Written before the bad one.",
    keys: ["ordering"],
  });
  const poison = await cairn.create({
    slot: poisonSlot,
    content: "No read model can store this one.",
  });
  const after = await cairn.create({
    slot: "ops/after",
    content: "Written after the bad one.",
    keys: ["ordering"],
  });

  // Set aside by every projection, with the reason and the error, after the allowed attempts.
  const letters = await waitFor(
    async () => {
      const open = await openDeadLetters(cairn);
      return open.length === projectionNames.length ? open : false;
    },
    { timeoutMs: 30_000, description: "a dead letter from each projection" },
  );
  expect(letters.map((l) => [l.projection, l.reason, l.attempts, l.streamId, l.eventType])).toEqual(
    projectionNames.map((name) => [
      name,
      "apply_failed",
      retry.maxAttempts,
      `memory-${poison.id}`,
      "memory.recorded",
    ]),
  );
  for (const l of letters) expect(l.error, l.projection).toContain("injected fault");

  // The attempts were spaced by a backoff that doubled each time.
  for (const name of projectionNames) {
    const times = fault.attempts.get(name) ?? [];
    expect(times.length, name).toBe(retry.maxAttempts);
    for (let i = 1; i < times.length; i += 1) {
      const waited = (times[i] as number) - (times[i - 1] as number);
      expect(waited, `${name} attempt ${i + 1}`).toBeGreaterThanOrEqual(retry.baseMs * 2 ** (i - 1) - 5);
    }
  }

  // The events after it applied: every read model holds the later memory, none the bad one.
  await waitForProjectionsAt(cairn.nc, await cairn.store.lastCommittedPosition(), {
    timeoutMs: 20_000,
    description: "every projection past the dead letter",
  });
  for (const [name, text] of await liveSnapshots(cairn)) {
    expect(text.includes(before.id) && text.includes(after.id), name).toBe(true);
    expect(text.includes(poison.id), name).toBe(false);
  }

  // The doctor reports them, with repair as the fix.
  const sick = await cairn.doctor();
  expect(sick.deadLetters.map((d) => [d.projection, d.count])).toEqual(projectionNames.map((n) => [n, 1]));
  expect(sick.findings.find((f) => f.code === "dead_letters")).toMatchObject({ count: 5, fix: "repair" });
  expect(sick.projections.map((p) => p.deadLetters)).toEqual(projectionNames.map(() => 1));

  // The cause is gone; repair retries them and every read model now holds the memory.
  fault.on = false;
  const repaired = await cairn.run("repair", { apply: true });
  const retried = repaired.actions.filter((a) => a.action === "retry_dead_letters");
  expect(retried.map((a) => a.status)).toEqual(["applied", "applied", "applied"]);
  expect(await openDeadLetters(cairn)).toEqual([]);
  for (const [name, text] of await liveSnapshots(cairn)) expect(text.includes(poison.id), name).toBe(true);
  const healthy = await cairn.doctor();
  expect(healthy.findings.find((f) => f.code === "dead_letters")).toBeUndefined();
  expect(healthy.projections.map((p) => p.deadLetters)).toEqual(projectionNames.map(() => 0));
});
