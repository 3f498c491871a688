import type { DoctorReport } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import type { ReadModelInventory } from "../clients/search-repair-client.ts";
import type { MemoryCard } from "../view/memory-card.ts";
import { compareWithLog } from "./check-drift.ts";
import { doctorReportMarkdown } from "./format-doctor-report.ts";

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const card = (n: number, positions: number[], purgedAt: string | null = null) =>
  ({ id: id(n), version: positions.length, positions, purgedAt }) as MemoryCard;
const held = (n: number, version: number, hasText = true) => ({
  id: id(n),
  tenant: "acme",
  tier: "memory" as const,
  status: "active" as const,
  version,
  hasText,
  purged: false,
});

describe("the doctor's comparison of a read model with the log", () => {
  it("judges each document as of the read model's own position", () => {
    const cards = new Map(
      [
        card(1, [1, 5]), // current
        card(2, [2]), // missing
        card(3, [3, 6]), // behind: holds v1 although the read model applied position 6
        card(4, [4, 20]), // held at v2, which the read model has not applied yet: in flight, fine
        card(5, [30]), // created after the position: not expected
        card(7, [7, 8], "2026-01-01T00:00:00.000Z"), // purged at 8, still holding text
      ].map((c) => [c.id, c]),
    );
    const inventory: ReadModelInventory = {
      projection: "lexical",
      generation: 1,
      position: 10,
      documents: new Map(
        [held(1, 2), held(3, 1), held(4, 2), held(6, 1), held(7, 2, true)].map((d) => [d.id, d]),
      ),
    };
    const drift = compareWithLog(inventory, cards, "all");
    expect(drift).toMatchObject({
      readModel: "lexical",
      position: 10,
      checked: 6,
      missing: 1,
      stale: 1,
      unexplained: 1,
      notPurged: 1,
      ids: { missing: [id(2)], stale: [id(3)], unexplained: [id(6)], notPurged: [id(7)] },
    });
    expect(compareWithLog(inventory, cards, [id(2)])).toMatchObject({ checked: 1, missing: 1, stale: 0 });
  });
});

describe("the doctor's markdown", () => {
  it("reads at a glance", () => {
    const report: DoctorReport = {
      generatedAt: "2026-01-01T00:00:00.000Z",
      tenant: "acme",
      mode: "full",
      status: "error",
      summary: "error: 1 document(s) of the log are missing in lexical",
      findings: [
        {
          code: "document_missing",
          severity: "error",
          message: "1 document(s) of the log are missing in lexical",
          count: 1,
          fix: "repair",
        },
      ],
      log: { position: 10 },
      relay: { checkpoint: 10, backlog: 0 },
      projections: [
        {
          name: "search.lexical",
          service: "search",
          generation: 1,
          position: 10,
          lag: 0,
          deadLetters: 0,
          rebuilding: null,
        },
      ],
      consumers: [{ name: "search-lexical", pending: 0, ackPending: 0, redelivered: 0 }],
      deadLetters: [],
      drift: [
        {
          readModel: "lexical",
          position: 10,
          checked: 3,
          missing: 1,
          stale: 0,
          unexplained: 0,
          notPurged: 0,
          ids: { missing: [id(2)], stale: [], unexplained: [], notPurged: [] },
        },
      ],
      verification: { due: 2, byKind: { fix: 2 } },
      inbox: { pendingProposals: 1, oldestProposalAgeHours: 5, openHandoffs: 0, oldestHandoffAgeHours: null },
    };
    const md = doctorReportMarkdown(report);
    expect(md).toContain("# Cairn doctor: error");
    expect(md).toContain(
      "- ✖ **document_missing** 1 document(s) of the log are missing in lexical (fix: repair)",
    );
    expect(md).toContain("| lexical | 10 | 3 | 1 | 0 | 0 | 0 |");
    expect(md).toContain(`lexical missing: ${id(2)}`);
    expect(md).toContain("- 2 memory(ies) due for verification (fix 2)");
  });
});
