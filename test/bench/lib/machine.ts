// How fast this machine's cores are, as one figure: the milliseconds a fixed piece of work
// takes on one core (JSON, hashing and string work, the kind the services do). Benches report
// it beside their figures, so that a change between two runs on different machines can be
// told apart from a change in the code: the same code runs about as much faster as this
// figure is smaller.
import { createHash } from "node:crypto";

const sample = {
  id: "0b5f3c1e-8f0a-4a57-9d3e-2f6f1c9b7a10",
  slot: "project-deploys",
  content:
    "Decision about deploys: the platform team keeps PostgreSQL with pgvector, runs the tests " +
    "before merging, and watches the p99 latency. See the runbook; it works well and everyone is happy with it.",
  tags: ["deploys", "database", "observability"],
  entities: [
    { text: "PostgreSQL", type: "product" },
    { text: "pgvector", type: "product" },
  ],
  version: 3,
};

function once(): number {
  const started = performance.now();
  let words = 0;
  for (let i = 0; i < 16_000; i += 1) {
    const text = JSON.stringify({ ...sample, version: i });
    const back = JSON.parse(text) as typeof sample;
    createHash("sha256").update(text).digest("hex");
    words += back.content.toLowerCase().split(/[^\p{L}\p{N}]+/u).length;
  }
  if (words === 0) throw new Error("the reference work did nothing");
  return performance.now() - started;
}

/** The fixed work's time on one core, in ms: the best of three runs after a warm-up. */
export function cpuReferenceMs(): number {
  once();
  return Number(Math.min(once(), once(), once()).toFixed(1));
}
