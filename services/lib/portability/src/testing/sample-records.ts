// Export records and memory documents for the unit tests.
import type { CairnExportHeader, CairnExportRecord, MemoryDocument, StoredEvent } from "@cairn/contracts";
import { memoryDocument, testMeta } from "@cairn/memory-model/testing";

export const sampleHeader: CairnExportHeader = {
  format: "cairn-export",
  version: 1,
  exportedAt: "2026-11-30T12:00:00.000Z",
  tenant: "acme",
  scope: null,
};

let counter = 0;

/** A UUID that is the same for the same number. */
export function uuidFor(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

export function sampleRecord(overrides: Partial<CairnExportRecord> = {}): CairnExportRecord {
  counter++;
  const id = overrides.id ?? uuidFor(1000 + counter);
  const content = overrides.content ?? `Memory number ${counter}`;
  return {
    id,
    tier: "memory",
    status: "active",
    slot: `slot-${counter}`,
    kind: "note",
    scope: "team",
    agent: "claude-code",
    title: content.split("\n")[0]!,
    content,
    tags: [],
    aliases: [],
    keys: [],
    links: [],
    project: null,
    source: null,
    validFrom: null,
    invalidAt: null,
    verifiedAt: null,
    supersedes: null,
    supersededBy: null,
    promotedFrom: null,
    promotedTo: null,
    createdAt: "2026-11-01T10:00:00.000Z",
    updatedAt: "2026-11-01T10:00:00.000Z",
    purged: false,
    versions: [
      {
        version: 1,
        type: "memory.recorded",
        at: "2026-11-01T10:00:00.000Z",
        agent: "claude-code",
        title: content.split("\n")[0]!,
        content,
      },
    ],
    ...overrides,
  };
}

export function sampleDocument(overrides: Partial<MemoryDocument> = {}): MemoryDocument {
  return memoryDocument({
    id: uuidFor(1),
    slot: "project-package-manager",
    kind: "decision",
    content: "We use pnpm with a catalog: [[project-build]]",
    title: "We use pnpm",
    tags: ["tooling"],
    aliases: ["package manager"],
    keys: ["pnpm"],
    links: ["project-build"],
    agent: "claude-code",
    project: "cairn",
    version: 3,
    contentHash: "sha256:0",
    createdAt: "2026-11-01T10:00:00.000Z",
    updatedAt: "2026-11-03T10:00:00.000Z",
    ...overrides,
  });
}

export function sampleEvent(
  version: number,
  type: string,
  data: unknown,
  actor = "claude-code",
): Pick<StoredEvent, "type" | "version" | "data" | "meta"> {
  return {
    type,
    version,
    data,
    meta: testMeta({ actor, correlationId: `c-${version}`, recordedAt: `2026-11-0${version}T10:00:00.000Z` }),
  };
}
