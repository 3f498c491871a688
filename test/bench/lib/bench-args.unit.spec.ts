import { describe, expect, it } from "vitest";
import { checkArgs, option, optional, positiveNumber, wholeNumber, wholeNumbers } from "./bench-args.ts";

describe("bench options", () => {
  it("reads `--name value` and `--name=value`, and falls back when the option is absent", () => {
    expect(optional(["--mode", "full", "--json"], "mode")).toBe("full");
    expect(optional(["--json", "--mode=vector"], "mode")).toBe("vector");
    expect(optional(["--json"], "mode")).toBeUndefined();
    // A name that only starts like another is another option.
    expect(optional(["--modes=x"], "mode")).toBeUndefined();
    expect(option(["--json"], "profile", "")).toBe("");
    expect(option(["--profile", "/tmp/p"], "profile", "")).toBe("/tmp/p");
  });

  it("refuses an option given without its value instead of using the default", () => {
    expect(() => optional(["--copies"], "copies")).toThrow("--copies needs a value");
    expect(() => optional(["--profile", "--json"], "profile")).toThrow("--profile needs a value");
    expect(() => wholeNumber(["--seconds"], "seconds", 10)).toThrow("--seconds needs a value");
  });

  it("checks every argument against what the bench reads, before anything starts", () => {
    const options = {
      usage: "usage: pnpm bench x [--sizes N] [--no-fsync] [--json]",
      values: ["sizes"],
      flags: ["no-fsync"],
    };
    expect(checkArgs(["--sizes", "10", "--no-fsync", "--json"], options)).toBe(true);
    expect(checkArgs(["--sizes=10,20"], options)).toBe(true);
    expect(() => checkArgs(["--size", "10"], options)).toThrow("unknown option --size\nusage: pnpm bench x");
    expect(() => checkArgs(["--json=1"], options)).toThrow("--json takes no value");
    expect(() => checkArgs(["--sizes"], options)).toThrow("--sizes needs a value");
    expect(() => checkArgs(["--sizes", "--json"], options)).toThrow("--sizes needs a value");
    expect(() => checkArgs(["10"], options)).toThrow('unexpected argument "10"');
  });

  it("answers --help with the usage and tells the bench to stop", () => {
    const printed: unknown[] = [];
    const log = console.log;
    console.log = (...line: unknown[]) => printed.push(...line);
    try {
      expect(
        checkArgs(["--sizes", "10", "--help"], { usage: "usage: pnpm bench x", values: ["sizes"] }),
      ).toBe(false);
    } finally {
      console.log = log;
    }
    expect(printed).toEqual(["usage: pnpm bench x"]);
  });

  it("takes whole numbers of at least the least value, and refuses the rest by name", () => {
    expect(wholeNumber(["--queries", "300"], "queries", 200)).toBe(300);
    expect(wholeNumber([], "queries", 200)).toBe(200);
    expect(wholeNumber(["--warmup", "0"], "warmup", 300, { least: 0 })).toBe(0);
    for (const bad of ["0", "-3", "1.5", "many", ""]) {
      expect(() => wholeNumber(["--queries", bad], "queries", 200)).toThrow(
        "--queries needs a positive integer",
      );
    }
    expect(() => wholeNumber(["--warmup", "-1"], "warmup", 300, { least: 0 })).toThrow(
      "--warmup needs a whole number, 0 or more",
    );
    expect(() => wholeNumber(["--rounds", "x"], "rounds", 4, { usage: "usage: pnpm bench …" })).toThrow(
      "--rounds needs a positive integer\nusage: pnpm bench …",
    );
  });

  it("takes positive numbers with fractions, and refuses zero, negatives and words", () => {
    expect(positiveNumber(["--seconds", "2.5"], "seconds", 10)).toBe(2.5);
    expect(positiveNumber([], "seconds", 10)).toBe(10);
    for (const bad of ["0", "-1", "soon", "Infinity"]) {
      expect(() => positiveNumber(["--seconds", bad], "seconds", 10)).toThrow(
        "--seconds needs a positive number",
      );
    }
  });

  it("takes a list of positive whole numbers, and refuses a list with a gap or a bad value", () => {
    expect(wholeNumbers(["--sizes", "10000,100000"], "sizes", [10])).toEqual([10_000, 100_000]);
    expect(wholeNumbers(["--copies= 1, 2 "], "copies", [1])).toEqual([1, 2]);
    expect(wholeNumbers([], "copies", [1, 2])).toEqual([1, 2]);
    for (const bad of ["1,,2", "1,x", "0", "2.5", ""]) {
      expect(() => wholeNumbers(["--copies", bad], "copies", [1, 2])).toThrow(
        "--copies needs positive integers separated by commas, e.g. 1,2",
      );
    }
  });
});
