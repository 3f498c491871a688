import { randomBytes } from "node:crypto";

// Unique across the workers of one run (pid) and across runs sharing a server (time + random).
const processTag = `${process.pid.toString(36)}${Date.now().toString(36).slice(-3)}`;
let counter = 0;

/**
 * A name like `t_k3x9a1_4_9f2c`: lower-case letters, digits and underscores only, so it is a
 * valid Postgres identifier, NATS stream/consumer name and Redis key part. Under 40 chars
 * for prefixes up to 16 chars.
 */
export function makeUniqueName(prefix = "t"): string {
  counter += 1;
  return `${prefix}_${processTag}_${counter.toString(36)}_${randomBytes(2).toString("hex")}`;
}
