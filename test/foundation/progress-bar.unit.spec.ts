// The command line's progress: plain lines with done/total, rate and time left when stderr is
// a file or a pipe (no control characters in a log), a bar redrawn in place on a terminal.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgressBar } from "../../scripts/lib/progress-bar.ts";

function stream(tty: boolean) {
  const out = new PassThrough() as PassThrough & { isTTY: boolean; columns: number };
  out.isTTY = tty;
  out.columns = 100;
  let text = "";
  out.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  return { out: out as unknown as NodeJS.WriteStream, text: () => text };
}

describe("createProgressBar", () => {
  it("writes plain lines where stderr is not a terminal", () => {
    const { out, text } = stream(false);
    const bar = createProgressBar("import", out);
    bar.update(1, 4);
    bar.update(4, 4);
    bar.stop();
    const lines = text().split("\n").filter(Boolean);
    expect(lines[0]).toMatch(/^import 1\/4 \(25%\), [\d.]+\/s, eta \w+/);
    expect(lines.at(-1)).toMatch(/^import 4\/4 \(100%\), [\d.]+\/s, eta 0s$/);
    expect(text()).not.toContain("\u001b");
  });

  it("draws a bar on a terminal", () => {
    const { out, text } = stream(true);
    const bar = createProgressBar("import", out);
    bar.update(2, 4);
    bar.update(4, 4);
    bar.stop();
    expect(text()).toContain("import [");
    expect(text()).toMatch(/4\/4 100% \| [\d.]+\/s \| eta 0s/);
  });
});
