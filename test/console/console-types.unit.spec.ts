// The console's browser code is checked with its own tsconfig (the DOM and Preact's JSX, which
// the repository's tsconfig leaves out), here, so every test run holds it to the same strict
// settings as the rest.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, test } from "vitest";

const tsconfig = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "services",
  "console",
  "tsconfig.json",
);

// The program includes the contracts' zod types, which take the compiler a while on a busy machine.
test("the console's browser code type-checks", { timeout: 300_000 }, () => {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  expect(parsed.fileNames.some((f) => f.endsWith("src/ui/app.tsx"))).toBe(true);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const host = {
    getCanonicalFileName: (f: string) => f,
    getCurrentDirectory: ts.sys.getCurrentDirectory,
    getNewLine: () => "\n",
  };
  expect(ts.formatDiagnostics(diagnostics, host)).toBe("");
});
