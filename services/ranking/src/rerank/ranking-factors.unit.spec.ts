import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boostFactor, decayFactor, feedbackFactor, sentimentFactor, termHeat } from "./ranking-factors.ts";

describe("decayFactor", () => {
  it("is 1 for a new memory and falls with age to at most the weight", () => {
    expect(decayFactor(0, 60, 0, 2)).toBe(1);
    expect(decayFactor(60, 60, 0, 2)).toBeCloseTo(2 ** -0.5);
    expect(decayFactor(10_000, 60, 0, 2)).toBeCloseTo(0.5);
    expect(decayFactor(30, 60, 0, 2)).toBeGreaterThan(decayFactor(90, 60, 0, 2));
  });
  it("is slower for deep memories", () => {
    expect(decayFactor(60, 60, 1, 2)).toBeGreaterThan(decayFactor(60, 60, 0, 2));
  });
  it("is off with weight 1", () => {
    expect(decayFactor(365, 60, 0, 1)).toBe(1);
  });
});

describe("sentimentFactor", () => {
  it("boosts positive and negative intensity alike, up to the weight", () => {
    expect(sentimentFactor(0, 1.2)).toBe(1);
    expect(sentimentFactor(1, 1.2)).toBeCloseTo(1.2);
    expect(sentimentFactor(-0.5, 1.2)).toBeCloseTo(1.1);
    expect(sentimentFactor(0.9, 1)).toBe(1);
  });
});

describe("feedbackFactor", () => {
  it("rewards useful and penalises not useful, bounded by the weight", () => {
    expect(feedbackFactor(0, 0, 1.5)).toBe(1);
    expect(feedbackFactor(1, 0, 1.5)).toBeCloseTo(Math.sqrt(1.5));
    expect(feedbackFactor(0, 1, 1.5)).toBeCloseTo(1 / Math.sqrt(1.5));
    expect(feedbackFactor(100, 0, 1.5)).toBeLessThan(1.5);
    expect(feedbackFactor(100, 0, 1.5)).toBeGreaterThan(feedbackFactor(1, 0, 1.5));
    expect(feedbackFactor(3, 3, 1.5)).toBe(1);
    expect(feedbackFactor(5, 0, 1)).toBe(1);
  });
});

describe("boostFactor (hot topic, attention, depth)", () => {
  it("maps a 0..1 signal to 1..weight and clamps", () => {
    expect(boostFactor(0, 1.3)).toBe(1);
    expect(boostFactor(1, 1.3)).toBeCloseTo(1.3);
    expect(boostFactor(0.5, 1.3)).toBeCloseTo(1.15);
    expect(boostFactor(7, 1.3)).toBeCloseTo(1.3);
    expect(boostFactor(Number.NaN, 1.3)).toBe(1);
    expect(boostFactor(1, 1)).toBe(1);
  });
});

describe("termHeat", () => {
  it("averages the hottest terms over a fixed count", () => {
    expect(termHeat([])).toBe(0);
    expect(termHeat([1, 1, 1, 0])).toBe(1);
    expect(termHeat([1])).toBeCloseTo(1 / 3);
  });
  it("is the mean of the highest values whatever their order", () => {
    const mean = (values: number[], top: number) =>
      [...values]
        .sort((a, b) => b - a)
        .slice(0, top)
        .reduce((a, b) => a + b, 0) / top;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true })), {
          maxLength: 70,
        }),
        fc.integer({ min: 1, max: 5 }),
        (values, top) => {
          expect(termHeat(values, top)).toBe(values.length === 0 ? 0 : mean(values, top));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
