// The one shape every importer returns, and the last step they all share: clean each record,
// validate it against ingest's own input schema, drop what ingest would refuse anyway (a second
// copy of the same content), keep successions (supersede, promote) whose both ends are present,
// and order the items so that each one follows the item it succeeds.
import {
  type Kind,
  limits,
  MemoryInputSchema,
  normaliseSlot,
  type Scope,
  type Status,
  type Tier,
  TimestampSchema,
} from "@cairn/contracts";
import type { z } from "zod";
import { cleanContent, cleanLabel, cleanLabels, type Report } from "./clean-text.ts";
import { cutSlot } from "./slot-name.ts";

/** A memory as `memory.create` (`proposal.submit`, `handoff.open`) takes it, every default filled in. */
export type ImportMemory = z.output<typeof MemoryInputSchema>;

/** An item written as the successor of another item of the same plan. */
export type Succession = {
  /** The `originalId` of the item it succeeds; that item comes earlier in the plan. */
  originalId: string;
  /** `supersede`: written with `memory.supersede` on that memory; `promote`: with `proposal.promote`. */
  via: "supersede" | "promote";
};

export type ImportItem = {
  /** Where the record came from, for reports: `file:line`, a file path, or the source's id. */
  sourceRef: string;
  tier: Tier;
  /** Valid for contracts' `MemoryInputSchema`. */
  memory: ImportMemory;
  /**
   * The slots the memory links to, for reports. Ingest derives a memory's links from the
   * `[[slot]]`s of its content, so importers write a foreign format's links into the content.
   */
  links: string[];
  /** The status to end in when it is not the tier's first one (see `importSteps` for when it is applied). */
  status?: Status;
  /** When the memory stopped being true, applied after it is written (`memory.invalidate`). */
  invalidAt?: string;
  /** The record's id in the source (a Cairn memory id, a mem0 or keymem id). */
  originalId?: string;
  /** Who wrote it in the source. Ingest records the importing principal; this is for reports. */
  agent?: string;
  successorOf?: Succession;
  /**
   * Later versions' text, in order, written as revisions after the item (a Cairn export keeps
   * every version; `memory` then holds the first).
   */
  revisions?: { title?: string; content?: string }[];
};

export type ImportProblem = { where: string; message: string };

/** What every importer returns. Deterministic: the same input gives the same items, in the same order. */
export type ImportPlan = { items: ImportItem[]; problems: ImportProblem[] };

/** Defaults for what a foreign format does not say. */
export type ImportOptions = {
  /**
   * Scope of imported memories whose source names none (default `team`); `importCairnExport`
   * applies it to every record, to bring an export into another scope.
   */
  scope?: Scope;
  /**
   * Project of imported memories whose source names none (default none); mem0 and keymem
   * imports apply it to every memory, over `app_id` or `namespace`.
   */
  project?: string | null;
  /** The name of the file read (for `sourceRef`s such as `memory.jsonl:12`). */
  sourceName?: string;
};

/** A record as an importer read it: an item before cleaning and validation. */
export type DraftItem = Omit<ImportItem, "memory" | "invalidAt"> & {
  memory: {
    /** Already claimed through `SlotClaims` (canonical and unique where it has to be). */
    slot: string;
    kind: Kind;
    content: string;
    title?: string | null | undefined;
    tags: readonly string[];
    aliases: readonly string[];
    keys: readonly string[];
    scope: Scope;
    project: string | null;
    source: string | null;
    validFrom: string | null;
    episode?: { id: string; order: number | null } | undefined;
  };
  invalidAt?: string | null | undefined;
};

export const initialStatusOf: Record<Tier, Status> = {
  memory: "active",
  proposal: "pending",
  handoff: "active",
};

/** Statuses a tier can be in (see contracts' `statuses`). */
export const statusesOf: Record<Tier, readonly Status[]> = {
  memory: ["active", "superseded", "archived", "deleted"],
  proposal: ["pending", "promoted", "rejected"],
  handoff: ["active", "completed"],
};

/** Statuses that only a succession produces: no command sets them directly. */
const producedBySuccession: Partial<Record<Status, Succession["via"]>> = {
  superseded: "supersede",
  promoted: "promote",
};

/** Whether a memory ending in this status keeps its slot reserved (an active memory or handoff). */
export function holdsSlot(tier: Tier, status: Status | undefined): boolean {
  return tier !== "proposal" && (status ?? initialStatusOf[tier]) === "active";
}

function finalStatus(item: Pick<ImportItem, "tier" | "status">): Status {
  return item.status ?? initialStatusOf[item.tier];
}

/** Content as ingest compares it for duplicates: Unicode form, case and spacing do not count. */
function contentIdentity(content: string): string {
  return content.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

function cleanLinks(links: readonly string[]): string[] {
  const out = new Set<string>();
  for (const link of links) {
    const slot = cutSlot(normaliseSlot(link));
    if (slot.length > 0) out.add(slot);
  }
  return [...out];
}

function cleanDraft(draft: DraftItem, report: Report): ImportItem | undefined {
  const d = draft.memory;
  const content = cleanContent(d.content, report);
  if (content.trim().length === 0) {
    report("no content; skipped");
    return undefined;
  }
  if (content.length > limits.contentMaxChars) {
    report(
      `content is ${content.length} characters, over the limit of ${limits.contentMaxChars}; skipped (content is never cut)`,
    );
    return undefined;
  }
  const title = d.title ? cleanLabel(d.title, limits.titleMaxChars, "title", report) : "";
  const project = d.project ? cleanLabel(d.project, limits.projectMaxChars, "project", report) : "";
  const source = d.source ? cleanLabel(d.source, limits.sourceMaxChars, "source", report) : "";
  const candidate = {
    slot: d.slot,
    kind: d.kind,
    content,
    ...(title ? { title } : {}),
    tags: cleanLabels(
      d.tags,
      { maxChars: limits.tagMaxChars, maxCount: limits.maxTags, what: "tag", lowerCase: true },
      report,
    ),
    aliases: cleanLabels(
      d.aliases,
      { maxChars: limits.slotMaxChars, maxCount: limits.maxAliases, what: "alias" },
      report,
    ),
    keys: cleanLabels(
      d.keys,
      { maxChars: limits.tagMaxChars, maxCount: limits.maxKeys, what: "key" },
      report,
    ),
    scope: d.scope,
    project: project || null,
    source: source || null,
    validFrom: d.validFrom,
    ...(d.episode ? { episode: d.episode } : {}),
  };
  const parsed = MemoryInputSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      report(`${issue.path.join(".") || "memory"}: ${issue.message}; skipped`);
    return undefined;
  }
  const item: ImportItem = {
    sourceRef: draft.sourceRef,
    tier: draft.tier,
    memory: parsed.data,
    links: cleanLinks(draft.links),
  };
  if (draft.status !== undefined && draft.status !== initialStatusOf[draft.tier]) {
    if (statusesOf[draft.tier].includes(draft.status)) item.status = draft.status;
    else
      report(
        `status ${draft.status} does not exist for a ${draft.tier}; left at ${initialStatusOf[draft.tier]}`,
      );
  }
  if (draft.invalidAt) {
    if (TimestampSchema.safeParse(draft.invalidAt).success) item.invalidAt = draft.invalidAt;
    else report(`invalidAt ${JSON.stringify(draft.invalidAt)} is not a timestamp; left out`);
  }
  if (draft.originalId !== undefined) item.originalId = draft.originalId;
  if (draft.agent) item.agent = draft.agent;
  if (draft.successorOf !== undefined) item.successorOf = draft.successorOf;
  if (draft.revisions && draft.revisions.length > 0) {
    item.revisions = draft.revisions.map((r) => ({
      ...(r.title !== undefined ? { title: cleanLabel(r.title, limits.titleMaxChars, "title", report) } : {}),
      ...(r.content !== undefined ? { content: cleanContent(r.content, report) } : {}),
    }));
  }
  return item;
}

/** Drops a second item with the same content in the same uniqueness domain: ingest would refuse it. */
function withoutDuplicateContent(items: ImportItem[], problems: ImportProblem[]): ImportItem[] {
  const firstWith = new Map<string, string>();
  return items.filter((item) => {
    if (finalStatus(item) !== initialStatusOf[item.tier]) return true;
    // One domain per tier and scope: the importing principal writes (and owns) every item.
    const key = [item.tier, item.memory.scope, contentIdentity(item.memory.content)].join("\u0000");
    const first = firstWith.get(key);
    if (first === undefined) {
      firstWith.set(key, item.sourceRef);
      return true;
    }
    problems.push({
      where: item.sourceRef,
      message: `same content as ${first}; ingest would refuse it as duplicate_content; skipped`,
    });
    return false;
  });
}

/**
 * Keeps a succession only when it can be written: its predecessor is in the plan, is of the
 * right tier (a memory for supersede, a proposal promoted to a memory), and has no other
 * successor. Then orders the plan so that every successor follows its predecessor (input order
 * otherwise), and settles statuses that only a succession can produce.
 */
function settleSuccessions(items: ImportItem[], problems: ImportProblem[]): ImportItem[] {
  const byId = new Map<string, ImportItem>();
  for (const item of items)
    if (item.originalId !== undefined && !byId.has(item.originalId)) byId.set(item.originalId, item);
  const claimed = new Set<ImportItem>();
  const drop = (item: ImportItem, why: string) => {
    problems.push({ where: item.sourceRef, message: `${why}; written on its own` });
    delete item.successorOf;
  };
  for (const item of items) {
    const succession = item.successorOf;
    if (succession === undefined) continue;
    const before = byId.get(succession.originalId);
    if (before === undefined) drop(item, `succeeds ${succession.originalId}, which is not in this import`);
    else if (before === item) drop(item, "succeeds itself");
    else if (succession.via === "supersede" && (before.tier !== "memory" || item.tier !== "memory"))
      drop(item, `supersedes ${before.sourceRef}, but only a memory supersedes a memory`);
    else if (succession.via === "promote" && (before.tier !== "proposal" || item.tier !== "memory"))
      drop(item, `is promoted from ${before.sourceRef}, but only a proposal is promoted to a memory`);
    else if (claimed.has(before)) drop(item, `${before.sourceRef} already has a successor in this import`);
    else claimed.add(before);
  }

  // Depth-first so that a predecessor listed after its successor is moved in front of it.
  const ordered: ImportItem[] = [];
  const placed = new Set<ImportItem>();
  const visiting = new Set<ImportItem>();
  const place = (item: ImportItem) => {
    if (placed.has(item)) return;
    visiting.add(item);
    const before = item.successorOf ? byId.get(item.successorOf.originalId) : undefined;
    if (before !== undefined && visiting.has(before)) {
      drop(item, `succession loop through ${before.sourceRef}`);
      claimed.delete(before);
    } else if (before !== undefined) place(before);
    visiting.delete(item);
    placed.add(item);
    ordered.push(item);
  };
  for (const item of items) place(item);

  const succeededVia = new Map<ImportItem, Succession["via"]>();
  for (const item of ordered) {
    const before = item.successorOf ? byId.get(item.successorOf.originalId) : undefined;
    if (before !== undefined) succeededVia.set(before, item.successorOf!.via);
  }
  for (const item of ordered) {
    const status = finalStatus(item);
    const via = succeededVia.get(item);
    const needs = producedBySuccession[status];
    if (via !== undefined && status === initialStatusOf[item.tier]) {
      problems.push({
        where: item.sourceRef,
        message: `is ${status} in the source, but writing its successor leaves it ${via === "supersede" ? "superseded" : "promoted"}`,
      });
    }
    if (needs === undefined || needs === via) continue;
    if (status === "superseded") {
      item.status = "archived";
      problems.push({
        where: item.sourceRef,
        message: "superseded, but what replaced it is not in this import; archived instead",
      });
    } else {
      delete item.status;
      problems.push({
        where: item.sourceRef,
        message: "promoted, but the memory it became is not in this import; imported as pending",
      });
    }
  }
  return ordered;
}

/** Cleans, validates and orders an importer's drafts into the plan it returns. */
export function finishImportPlan(drafts: readonly DraftItem[], problems: ImportProblem[]): ImportPlan {
  const cleaned: ImportItem[] = [];
  for (const draft of drafts) {
    const item = cleanDraft(draft, (message) => problems.push({ where: draft.sourceRef, message }));
    if (item !== undefined) cleaned.push(item);
  }
  const items = settleSuccessions(withoutDuplicateContent(cleaned, problems), problems);
  return { items, problems };
}

/** What an importer keeps while it reads: the problems found, by place, and how it ends. */
export type ImportRun = {
  /** The name of what is read (`options.sourceName`, else the importer's default), for places. */
  name: string;
  problems: ImportProblem[];
  /** Reports problems found at `where`. */
  reportAt(where: string): Report;
  /**
   * The input as JSON (text, or a value already parsed) of `schema`'s shape; undefined, with
   * the problem reported on `name`, when it is not JSON or not of that shape (`expected` says
   * what was).
   */
  readJson<S extends z.ZodType>(input: unknown, schema: S, expected: string): z.output<S> | undefined;
  /** The plan of an input that could not be read at all: nothing, and why. */
  nothing(): ImportPlan;
  /** The plan of what was read (`finishImportPlan`). */
  finish(drafts: readonly DraftItem[]): ImportPlan;
};

export function startImport(options: ImportOptions, defaultName: string): ImportRun {
  const name = options.sourceName ?? defaultName;
  const problems: ImportProblem[] = [];
  return {
    name,
    problems,
    reportAt: (where) => (message) => problems.push({ where, message }),
    readJson(input, schema, expected) {
      let value: unknown = input;
      if (typeof input === "string") {
        try {
          value = JSON.parse(input.replace(/^\uFEFF/, ""));
        } catch (error) {
          problems.push({ where: name, message: `not JSON: ${(error as Error).message}` });
          return undefined;
        }
      }
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      problems.push({ where: name, message: expected });
      return undefined;
    },
    nothing: () => ({ items: [], problems }),
    finish: (drafts) => finishImportPlan(drafts, problems),
  };
}

/** One command's worth of applying a plan. */
export type ImportStep =
  /** `memory.create`, `proposal.submit` or `handoff.open` by the item's tier. */
  | { action: "create"; item: ImportItem }
  /** `memory.supersede` of the item written for `of` (an `originalId`), with `item.memory` as replacement. */
  | { action: "supersede"; item: ImportItem; of: string }
  /** `proposal.promote` of the item written for `of`. */
  | { action: "promote"; item: ImportItem; of: string }
  /** `memory.archive`, `memory.delete`, `proposal.reject` or `handoff.complete`. */
  | { action: "set_status"; item: ImportItem; status: "archived" | "deleted" | "rejected" | "completed" }
  /** `memory.invalidate`. */
  | { action: "invalidate"; item: ImportItem; invalidAt: string };

function statusStep(item: ImportItem): ImportStep | undefined {
  const status = finalStatus(item);
  switch (status) {
    case "archived":
    case "deleted":
    case "rejected":
    case "completed":
      return { action: "set_status", item, status };
    case "active":
    case "pending":
    case "superseded":
    case "promoted":
      return undefined;
    default: {
      const never: never = status;
      throw new Error(`unhandled status ${String(never)}`);
    }
  }
}

/**
 * The commands that apply a plan, in order. Each item is written in plan order; its status
 * and `invalidAt` are applied right after it, or, when another item succeeds it, right after
 * that successor is written (a superseded memory cannot be archived first and superseded later,
 * and an archived memory releases its slot before a later memory claims it).
 */
export function importSteps(plan: ImportPlan): ImportStep[] {
  const successorOf = new Map<string, ImportItem>();
  for (const item of plan.items) if (item.successorOf) successorOf.set(item.successorOf.originalId, item);
  const waiting = new Map<ImportItem, ImportStep[]>();
  const steps: ImportStep[] = [];
  for (const item of plan.items) {
    const s = item.successorOf;
    steps.push(s ? { action: s.via, item, of: s.originalId } : { action: "create", item });
    const after: ImportStep[] = [];
    const status = statusStep(item);
    if (status) after.push(status);
    if (item.invalidAt) after.push({ action: "invalidate", item, invalidAt: item.invalidAt });
    const successor = item.originalId === undefined ? undefined : successorOf.get(item.originalId);
    if (successor) waiting.set(successor, after);
    else steps.push(...after);
    const released = waiting.get(item);
    if (released) steps.push(...released);
  }
  return steps;
}
