// The fault suite: for each part of a deployment (Postgres, Redis, NATS, ingest, search, the
// gateway), a REST write load during which the part is killed with SIGKILL and started again
// 3 s later. Afterwards no acknowledged write is lost, none is written twice, the read models
// equal the log, every service is ready again, and clients only ever saw 503/504 (or 429)
// with Retry-After, or no answer in time — never a 500. A table of the figures is printed.
//
// `pnpm test:faults` runs all six parts with the full load (CAIRN_FAULTS=full). The normal
// test command runs a shortened form: three parts (a store, the bus and a service) and a
// smaller load. CAIRN_FAULTS_PARTS, CAIRN_FAULTS_WRITES and CAIRN_FAULTS_CLIENTS override
// either (e.g. CAIRN_FAULTS_PARTS=redis,search).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultPart, type FaultStack, faultParts, startFaultStack } from "./fault-stack.ts";
import { type FaultReport, formatFaultTable, killPartUnderLoad } from "./kill-part-under-load.ts";
import { gatewayHonoursIdempotencyKey } from "./write-load.ts";

const full = process.env.CAIRN_FAULTS === "full";
const parts = (process.env.CAIRN_FAULTS_PARTS?.split(",").map((p) => p.trim()) ??
  (full ? [...faultParts] : ["postgres", "nats", "ingest"])) as FaultPart[];
const writes = Number(process.env.CAIRN_FAULTS_WRITES ?? (full ? 480 : 150));
const clients = Number(process.env.CAIRN_FAULTS_CLIENTS ?? (full ? 12 : 8));
const run = Date.now().toString(36);
const tenant = "faults";

describe(`kill -9 under a write load (${writes} writes, ${clients} clients)`, () => {
  let stack: FaultStack;
  let retries = true;
  const reports: FaultReport[] = [];

  beforeAll(async () => {
    for (const part of parts) {
      if (!(faultParts as readonly string[]).includes(part)) throw new Error(`no part ${part}`);
    }
    stack = await startFaultStack();
    // Retrying is only safe when a retry with the same key cannot write twice.
    retries = await gatewayHonoursIdempotencyKey({ ...stack, prefix: `fault/${run}` });
    if (!retries) {
      console.warn(
        "the gateway does not honour Idempotency-Key: clients do not retry, each write is tried once",
      );
    }
  }, 180_000);

  afterAll(async () => {
    if (reports.length > 0) {
      console.log(
        `\nfault suite: ${writes} writes by ${clients} clients per part, ` +
          `${retries ? "retried with the same Idempotency-Key" : "not retried (no idempotency keys)"}\n` +
          `${formatFaultTable(reports)}\n`,
      );
    }
    await stack?.stop();
  }, 60_000);

  it.each(parts)(
    "%s: nothing acknowledged is lost or doubled, the read models equal the log, all ready again",
    async (part) => {
      const report = await killPartUnderLoad(stack, part, { writes, clients, retries, run, tenant });
      reports.push(report);
      expect(report.problems, `${part}: ${report.answers}`).toEqual([]);
      expect(report.lost).toBe(0);
      expect(report.duplicates).toBe(0);
      expect(report.recoverySeconds).not.toBeNull();
      expect(report.acknowledged).toBeGreaterThan(0);
    },
    300_000,
  );
});
