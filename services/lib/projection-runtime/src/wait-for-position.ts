// Read-your-writes: a read that carries `afterPosition` waits until the projections it needs
// have applied that log position, up to a bounded time, then fails with `timeout`. It wakes
// as soon as a projection of this process moves, and looks again every `pollMs` for progress
// made by other copies of the service. A position the log has not reached was never answered
// to a write (a write answers once it committed), so waiting for it is refused at once
// (`validation_failed`, naming the log's end) instead of running into the timeout. A read that
// asks for no position does not wait and does not read the checkpoints either: it reports the
// positions this process last saw its projections reach (read from the store only when it has
// seen none), a lower bound of what the read reflects.
import { CairnError } from "@cairn/contracts";

export type PositionSource = {
  name: string;
  position(): Promise<number>;
  /** Calls `listener` when this process moved the projection (optional). */
  onAdvance?: (listener: () => void) => () => void;
  /** The log's last committed position (optional): a position past it is refused at once. */
  logPosition?: () => Promise<number>;
  /**
   * The position this process last saw the projection reach, when it applies the projection
   * itself (optional; 0 when it has seen none yet).
   */
  lastKnown?: () => number;
};

/**
 * Refuses a position past the log's end. The log that cannot be reached right now refuses
 * nothing: the wait goes on and ends as it would have.
 */
async function refuseBeyondLog(sources: readonly PositionSource[], afterPosition: number): Promise<void> {
  const logPosition = sources.find((s) => s.logPosition)?.logPosition;
  if (!logPosition) return;
  const end = await logPosition().catch(() => Number.POSITIVE_INFINITY);
  if (afterPosition <= end) return;
  throw new CairnError(
    "validation_failed",
    `afterPosition ${afterPosition} is beyond the end of the log (position ${end}): no write answered it`,
    {
      hint: `pass the position a write answered (the log ends at ${end}), or leave afterPosition out`,
      details: { afterPosition, logPosition: end },
    },
  );
}

export async function waitForPosition(
  sources: readonly PositionSource[],
  afterPosition: number | undefined,
  timeoutMs: number,
  pollMs = 10,
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  const unsubscribe =
    afterPosition === undefined
      ? []
      : sources.flatMap((s) => (s.onAdvance ? [s.onAdvance(() => wake?.())] : []));
  const current = async (s: PositionSource) => {
    const known = afterPosition === undefined ? (s.lastKnown?.() ?? 0) : 0;
    return known > 0 ? known : s.position();
  };
  try {
    for (let looked = 0; ; looked += 1) {
      const positions = await Promise.all(sources.map(async (s) => [s.name, await current(s)] as const));
      const reached: Record<string, number> = Object.fromEntries(positions);
      const behind = positions.filter(([, p]) => afterPosition !== undefined && p < afterPosition);
      if (behind.length === 0) return reached;
      if (looked === 0 && afterPosition !== undefined) await refuseBeyondLog(sources, afterPosition);
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
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(pollMs, Math.max(1, deadline - Date.now())));
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    for (const stop of unsubscribe) stop();
  }
}
