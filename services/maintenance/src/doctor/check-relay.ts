// The relay: how far JetStream is behind the log.
import { lastPosition, readCheckpoint } from "@cairn/event-store";
import type { DoctorDeps, Findings } from "./doctor-check.ts";

/** The relay's checkpoint name (services/ingest relay). */
const relayCheckpoint = "relay:jetstream";

export async function checkRelay(deps: Pick<DoctorDeps, "pool">, findings: Findings) {
  const position = await lastPosition(deps.pool);
  const checkpoint = await readCheckpoint(deps.pool, relayCheckpoint);
  const backlog = Math.max(0, position - checkpoint);
  if (backlog > 100) {
    findings.push({
      code: "relay_backlog",
      severity: "warn",
      message: `the relay is ${backlog} positions behind the log`,
      count: backlog,
      fix: "none",
    });
  }
  return { log: { position }, relay: { checkpoint, backlog } };
}
