// Read-your-writes: a read that carries `afterPosition` waits until the projections it needs
// have applied that log position, up to a bounded time, then fails with `timeout`.
import { setTimeout as sleep } from "node:timers/promises";
import { CairnError, type ProjectionName } from "@cairn/contracts";

export type PositionSource = { name: ProjectionName; position(): Promise<number> };

export async function waitForPosition(
  sources: readonly PositionSource[],
  afterPosition: number | undefined,
  timeoutMs: number,
  pollMs = 10,
): Promise<Partial<Record<ProjectionName, number>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const positions = await Promise.all(sources.map(async (s) => [s.name, await s.position()] as const));
    const reached = Object.fromEntries(positions) as Partial<Record<ProjectionName, number>>;
    const behind = positions.filter(([, p]) => afterPosition !== undefined && p < afterPosition);
    if (behind.length === 0) return reached;
    if (Date.now() >= deadline) {
      throw new CairnError(
        "timeout",
        `the ${behind.map(([n]) => n).join(" and ")} read model has not reached position ${afterPosition} within ${timeoutMs} ms`,
        {
          hint: "the write is durable; retry the read shortly or with a longer waitTimeoutMs",
          details: { afterPosition, positions: reached },
        },
      );
    }
    await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())));
  }
}
