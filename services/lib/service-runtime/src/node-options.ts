// The Node.js options every service process runs with, wherever it is started: `pnpm start`
// (scripts/run-services.ts), the tests' and benches' service processes, each service's own
// `start` script and the container image (the Dockerfile's `ENV NODE_OPTIONS`); a test holds
// those two to this list.
//
// `--max-semi-space-size=16`: V8 sizes the young generation from the machine's memory, and on a
// machine with 24 GiB it lets each of its two halves grow to 64 MB, which a busy service fills
// and keeps. Young objects here are a request's, dead within milliseconds, so a smaller young
// generation costs no more collection work. `pnpm bench search` at 10,000 memories, alternating:
// resident memory of search 405–408 → 312–318 MB, ranking 414–417 → 302–316 MB, gateway 265–287
// → 191–222 MB, ingest 233–234 → 205–208 MB, with the same CPU per recall of each service; at
// 100,000 memories, search 420 → 338 MB and ranking 416 → 314 MB.

/** The options, in the order they are given to `node`. */
export const serviceNodeOptions: readonly string[] = ["--max-semi-space-size=16"];

/**
 * An environment for a service process: `NODE_OPTIONS` holds the services' options first, then
 * whatever the environment already gave it (a later option wins, so an operator's own
 * `--max-semi-space-size`, or a profiler's flags, still apply).
 */
export function withServiceNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = env.NODE_OPTIONS?.trim() ?? "";
  const own = serviceNodeOptions.join(" ");
  if (given === own || given.startsWith(`${own} `)) return env;
  return { ...env, NODE_OPTIONS: given === "" ? own : `${own} ${given}` };
}
