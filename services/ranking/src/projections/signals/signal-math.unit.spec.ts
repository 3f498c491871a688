import { describe, expect, it } from "vitest";
import { addLog2, depthAt, heatExponent, reinforceDepth, reinforceLink } from "./signal-math.ts";

describe("depth", () => {
  it("grows with each deliberate read toward 1", () => {
    const first = reinforceDepth(undefined, "2025-01-01T00:00:00Z");
    const second = reinforceDepth(first, "2025-01-01T00:00:00Z");
    expect(first.value).toBeCloseTo(0.25);
    expect(second.value).toBeCloseTo(0.4375);
    let state = second;
    for (let i = 0; i < 30; i += 1) state = reinforceDepth(state, "2025-01-01T00:00:00Z");
    expect(state.value).toBeLessThanOrEqual(1);
    expect(state.value).toBeGreaterThan(0.99);
  });
  it("decays slowly, and slower when deep", () => {
    const shallow = { value: 0.25, at: "2025-01-01T00:00:00Z" };
    const deep = { value: 0.9, at: "2025-01-01T00:00:00Z" };
    const later = new Date("2025-04-01T00:00:00Z");
    expect(depthAt(shallow, later)).toBeLessThan(0.25);
    expect(depthAt(shallow, later)).toBeGreaterThan(0.12);
    expect(depthAt(deep, later) / 0.9).toBeGreaterThan(depthAt(shallow, later) / 0.25);
    expect(depthAt(undefined, later)).toBe(0);
  });
});

describe("heat", () => {
  it("adds in log space without overflow and keeps ratios of decayed counts", () => {
    const t = heatExponent("2025-01-01T00:00:00Z", 7);
    const twice = addLog2(t, t);
    expect(twice - t).toBeCloseTo(1);
    const weekLater = heatExponent("2025-01-08T00:00:00Z", 7);
    expect(weekLater - t).toBeCloseTo(1);
    expect(addLog2(undefined, 5)).toBe(5);
    expect(Number.isFinite(addLog2(5000, 5000))).toBe(true);
  });
});

describe("Hebbian link weight", () => {
  it("grows with each traversal and saturates", () => {
    const once = reinforceLink(1);
    expect(once).toBeGreaterThan(1);
    let w = once;
    for (let i = 0; i < 100; i += 1) w = reinforceLink(w);
    expect(w).toBeLessThanOrEqual(5);
    expect(w).toBeGreaterThan(4.9);
  });
});
