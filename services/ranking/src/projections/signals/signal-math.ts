// Pure arithmetic of the ranking signals: depth growth and decay, decayed term heat.

const dayMs = 86_400_000;

export type DepthState = { value: number; at: string };

export type DepthSettings = { halfLifeDays: number; gain: number };

export const defaultDepthSettings: DepthSettings = { halfLifeDays: 90, gain: 0.25 };

/**
 * Depth at `now`: it decays exponentially, and the deeper a memory is the slower it decays
 * (half-life × (1 + 3 × depth)), so a memory read often stays deep for a long time.
 */
export function depthAt(state: DepthState | undefined, now: Date, settings = defaultDepthSettings): number {
  if (!state || state.value <= 0) return 0;
  const days = Math.max(0, (now.getTime() - Date.parse(state.at)) / dayMs);
  const halfLife = settings.halfLifeDays * (1 + 3 * state.value);
  return state.value * 0.5 ** (days / halfLife);
}

/** Depth after one deliberate read at `at`: the decayed depth moves `gain` of the way to 1. */
export function reinforceDepth(
  state: DepthState | undefined,
  at: string,
  settings = defaultDepthSettings,
): DepthState {
  const current = depthAt(state, new Date(at), settings);
  return { value: current + (1 - current) * settings.gain, at };
}

/**
 * Heat of a term as log2 of Σ 2^((tᵢ - epoch) / halfLife) over its occurrences, so that
 * ratios between terms at any later time are the ratios of their decayed counts, and the
 * stored value never overflows.
 */
export const heatEpochMs = Date.UTC(2020, 0, 1);

export function heatExponent(at: string, halfLifeDays: number): number {
  return (Date.parse(at) - heatEpochMs) / (halfLifeDays * dayMs);
}

/** log2(2^a + 2^b), stable. */
export function addLog2(a: number | undefined, b: number): number {
  if (a === undefined || !Number.isFinite(a)) return b;
  const hi = Math.max(a, b);
  const lo = Math.min(a, b);
  return hi + Math.log2(1 + 2 ** (lo - hi));
}

/** Emotion factor of attention: an occurrence in an intense memory counts up to twice. */
export function attentionIncrement(sentiment: number): number {
  return 1 + Math.min(1, Math.abs(sentiment));
}

/** Hebbian link reinforcement with saturation: each traversal moves the weight 20 % toward the cap. */
export const linkWeight = { initial: 1, max: 5, rate: 0.2 } as const;

export function reinforceLink(weight: number): number {
  return weight + (linkWeight.max - weight) * linkWeight.rate;
}
