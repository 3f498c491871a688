// The retrieval benchmark runs on any folder of LoCoMo-format conversations, as a new user's
// data would be: turns that repeat an earlier one word for word ("Bye!") are counted as the
// memory that holds them instead of failing the run, and the figures come per category.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "../helpers/service-processes.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-locomo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function conversation(a: string, b: string) {
  const turn = (speaker: string, dia: string, text: string) => ({ speaker, dia_id: dia, text });
  return {
    conversation: {
      speaker_a: a,
      speaker_b: b,
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        turn(a, "D1:1", `Hi ${b}! I adopted a greyhound called Pepper last week.`),
        turn(b, "D1:2", "That is wonderful, greyhounds are so calm."),
        turn(a, "D1:3", "Thanks!"),
        turn(b, "D1:4", "Bye!"),
      ],
      session_2_date_time: "10:37 am on 27 June, 2023",
      session_2: [
        turn(b, "D2:1", "I started pottery classes on Thursdays at the community studio."),
        turn(a, "D2:2", "Thanks!"),
        turn(b, "D2:3", "My first bowl cracked in the kiln, sadly."),
        turn(b, "D2:4", "Bye!"),
      ],
    },
    qa: [
      { question: `What is the name of ${a}'s dog?`, answer: "Pepper", evidence: ["D1:1"], category: 4 },
      {
        question: `When does ${b} go to pottery classes?`,
        answer: "Thursdays",
        evidence: ["D2:1"],
        category: 2,
      },
      { question: "What happened to the first bowl?", answer: "It cracked", evidence: ["D2:3"], category: 1 },
      { question: "How did they say goodbye?", answer: "Bye", evidence: ["D2:4"], category: 3 },
      { question: "Adversarial", answer: "", evidence: ["D1:2"], category: 5 },
    ],
  };
}

writeFileSync(join(dir, "first.json"), JSON.stringify(conversation("Ana", "Ben")));
writeFileSync(join(dir, "second.json"), JSON.stringify(conversation("Chiara", "Dev")));

function bench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/bench.ts", "retrieval", ...args], { cwd: repoRoot });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

it("runs on a folder with repeated turns and reports recall per category", { timeout: 240_000 }, async () => {
  const run = await bench(["--data", dir, "--mode", "all", "--json"]);
  expect(run.code, run.stderr.slice(-2000)).toBe(0);
  const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) as string) as {
    conversations: number;
    turns: number;
    questions: number;
    repeatedTurns: number;
    modes: Record<string, { recall10: number; perCategory: Record<string, { questions: number }> }>;
  };
  // Within one conversation "Thanks!" and "Bye!" repeat once each.
  expect(summary).toMatchObject({ conversations: 2, turns: 16, questions: 8, repeatedTurns: 4 });
  expect(Object.keys(summary.modes)).toEqual(["lexical", "vector", "hybrid", "full"]);
  for (const [mode, figures] of Object.entries(summary.modes)) {
    expect(Object.keys(figures.perCategory).sort(), mode).toEqual(
      ["multi-hop", "open-domain", "single-hop", "temporal"].sort(),
    );
    expect(figures.perCategory["single-hop"]?.questions, mode).toBe(2);
  }
  // The dog's name is found by its words; the goodbye by the memory that holds both "Bye!".
  expect(summary.modes.full?.recall10).toBeGreaterThanOrEqual(0.75);
  expect(run.stdout).toContain("single-hop r@10");
});
