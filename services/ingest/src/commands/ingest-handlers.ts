// One handler per ingest command. Each validates nothing itself (parseCommand and
// refuseSecrets ran before), loads the streams it needs, decides with the pure domain
// functions and appends in one transaction.
import {
  CairnError,
  type EventData,
  type IngestCommand,
  type IngestCommandName,
  type PlanResult,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";
import { isVersionConflictError } from "@cairn/event-store";
import { canSee } from "@cairn/memory-model";
import { analyzeText } from "@cairn/text-analysis";
import { decideKey, evolveKey, initialKeyState, type KeyState } from "../domain/key-stream.ts";
import { bodyWithChanges } from "../domain/memory-body.ts";
import { decideMemory } from "../domain/memory-stream.ts";
import { decideTenantSettings, evolveTenant, initialTenantState } from "../domain/tenant-stream.ts";
import type { CommandContext } from "./command-context.ts";
import { idOfStream } from "./command-ids.ts";
import {
  createInTier,
  deleteMemory,
  recordNew,
  resolveConflict,
  reviseInTier,
  supersedeMemory,
  transition,
} from "./memory-commands.ts";
import { requireReviewer } from "./require-reviewer.ts";

export type IngestHandler<N extends IngestCommandName> = (
  ctx: CommandContext,
  command: IngestCommand<N>,
) => Promise<WriteResult | PlanResult>;

export type IngestHandlers = { [N in IngestCommandName]: IngestHandler<N> };

async function promoteProposal(ctx: CommandContext, command: IngestCommand<"proposal.promote">) {
  const proposal = await ctx.loadMemory(command.id);
  requireReviewer(ctx, "promoting a proposal", proposal.doc);
  ctx.checkVersion(proposal.doc, command.expectedVersion);
  const memoryId = ctx.newId("memory");
  const events = decideMemory(proposal, { type: "promote", memoryId });
  const { append } = ctx.memoryAppend(command.id, proposal, events, command.expectedVersion);
  return recordNew(ctx, "memory", bodyWithChanges(proposal.doc, command.changes), proposal.doc.scope, {
    id: memoryId,
    agent: proposal.doc.agent,
    promotedFrom: proposal.doc.id,
    alsoAppend: [append],
  });
}

async function giveFeedback(ctx: CommandContext, command: IngestCommand<"feedback.give">) {
  await ctx.loadMemory(command.memoryId);
  // On the memory's activity stream: feedback must not move the memory's version.
  return ctx.commit([
    {
      id: command.memoryId,
      streamType: "activity",
      streamId: streamIdFor("activity", command.memoryId),
      expectedVersion: "any",
      events: [
        {
          type: "feedback.given",
          data: {
            memoryId: command.memoryId,
            useful: command.useful,
            agent: ctx.principal.agent,
            note: command.note,
          },
        },
      ],
    },
  ]);
}

/**
 * What a recall records of its query: whether it was a deliberate read (no query: opened; a
 * key, or the gateway's `key:<label>`) and the query's topic terms for hot topics, never the
 * text itself, which the log could never erase.
 */
function recalledData(
  memoryIds: string[],
  agent: string,
  viaKey: string | null,
  query: string | null,
): EventData<"memories.recalled"> {
  const read = viaKey !== null || query === null || query.startsWith("key:");
  const terms = query === null ? [] : [...new Set(analyzeText(query))];
  return { memoryIds, agent, viaKey, query: null, read, terms };
}

/**
 * Records one recall or several by the same caller (`more`), each in its own activity stream,
 * all in one commit. Every memory must be one the caller can see: any other is refused by id.
 */
async function recordRecalls(ctx: CommandContext, command: IngestCommand<"recalls.record">) {
  const recalls = [command, ...command.more];
  const ids = [...new Set(recalls.flatMap((r) => r.memoryIds))];
  // Who may see a memory reads no text: the states stay sealed.
  const states = await ctx.foldMemoryStates(ids);
  const missing = ids.filter((id) => {
    const state = states.get(id);
    return !state?.exists || !canSee(state.doc, ctx.principal);
  });
  if (missing.length > 0) {
    throw new CairnError("not_found", `${missing.length} of the recalled memories are not visible to you`, {
      hint: "record only ids that a search or read returned to you",
      details: { ids: missing },
    });
  }
  // Each recall is its own activity stream: concurrent recalls never contend.
  return ctx.commit(
    recalls.map((recall) => {
      const recallId = ctx.newId("recall");
      return {
        id: recallId,
        streamType: "activity" as const,
        streamId: streamIdFor("activity", recallId),
        expectedVersion: "no_stream" as const,
        events: [
          {
            type: "memories.recalled" as const,
            data: recalledData(
              [...new Set(recall.memoryIds)],
              ctx.principal.agent,
              recall.viaKey,
              recall.query,
            ),
          },
        ],
      };
    }),
  );
}

async function loadKey(ctx: CommandContext, keyId: string): Promise<{ state: KeyState; version: number }> {
  const events = await ctx.store.readStream(streamIdFor("key", keyId));
  const state = events
    .filter((e) => e.meta.tenant === ctx.principal.tenant)
    .reduce(evolveKey, initialKeyState);
  if (!state.exists) {
    throw new CairnError("not_found", `no key ${keyId} in your tenant`, { details: { keyId } });
  }
  return { state, version: events.length };
}

async function mergeKey(ctx: CommandContext, command: IngestCommand<"key.merge">) {
  requireReviewer(ctx, "merging keys");
  const key = await loadKey(ctx, command.keyId);
  const into = await loadKey(ctx, command.intoKeyId);
  if (into.state.exists && into.state.mergedInto !== null) {
    throw new CairnError(
      "illegal_transition",
      `key ${command.intoKeyId} was itself merged into ${into.state.mergedInto}`,
      {
        hint: `merge into ${into.state.mergedInto} instead`,
      },
    );
  }
  const events = decideKey(key.state, { type: "merge", intoKeyId: command.intoKeyId });
  return ctx.commit(
    [
      {
        id: command.keyId,
        streamType: "key",
        streamId: streamIdFor("key", command.keyId),
        expectedVersion: key.version,
        events,
      },
      {
        id: command.intoKeyId,
        streamType: "key",
        streamId: streamIdFor("key", command.intoKeyId),
        expectedVersion: into.version,
        events: [],
      },
    ],
    1,
  );
}

async function changeTenantSettings(ctx: CommandContext, command: IngestCommand<"tenant.change_settings">) {
  if (ctx.principal.role !== "admin") {
    throw new CairnError("forbidden", "only an admin may change the tenant's settings");
  }
  if (Object.values(command.settings).every((v) => v === undefined)) {
    throw new CairnError("validation_failed", "settings is empty", {
      hint: "give at least one setting to change",
    });
  }
  const streamId = streamIdFor("tenant", ctx.principal.tenant);
  // The settings stream has no version token from the caller: a concurrent change is retried.
  for (let attempt = 1; ; attempt += 1) {
    const events = await ctx.store.readStream(streamId);
    const state = events.reduce(evolveTenant, initialTenantState);
    const last = events.at(-1);
    const version = last?.version ?? 0;
    if (command.expectedVersion !== undefined && command.expectedVersion !== version) {
      throw new CairnError(
        "version_conflict",
        `the tenant's settings are at version ${version}, not ${command.expectedVersion}: they changed since you read them`,
        {
          hint: `read the settings again (version ${version}), reapply your change, and send it with that version`,
          details: { expectedVersion: command.expectedVersion, currentVersion: version },
        },
      );
    }
    try {
      return await ctx.commit([
        {
          id: idOfStream(streamId),
          streamType: "tenant",
          streamId,
          expectedVersion: last ? last.version : "no_stream",
          events: decideTenantSettings(state, command.settings),
          ...(last ? { current: { version: last.version, position: last.position } } : {}),
        },
      ]);
    } catch (error) {
      if (!isVersionConflictError(error) || attempt >= 5) throw error;
    }
  }
}

export const ingestHandlers: IngestHandlers = {
  "memory.create": (ctx, c) => createInTier(ctx, "memory", c.memory),
  "memory.update": (ctx, c) => reviseInTier(ctx, "memory", c),
  "memory.supersede": supersedeMemory,
  "memory.archive": (ctx, c) => transition(ctx, c, { type: "archive", reason: c.reason }),
  "memory.delete": deleteMemory,
  "memory.restore": (ctx, c) => transition(ctx, c, { type: "restore", reason: c.reason }),
  "memory.invalidate": (ctx, c) =>
    transition(ctx, c, { type: "invalidate", invalidAt: c.invalidAt, reason: c.reason }),
  "memory.verify": (ctx, c) =>
    transition(ctx, c, { type: "verify", verifiedAt: ctx.now.toISOString(), note: c.note }),
  "memory.resolve_conflict": resolveConflict,
  "proposal.submit": (ctx, c) => createInTier(ctx, "proposal", c.proposal),
  "proposal.revise": (ctx, c) => reviseInTier(ctx, "proposal", c),
  "proposal.promote": promoteProposal,
  "proposal.reject": async (ctx, c) => {
    requireReviewer(ctx, "rejecting a proposal", (await ctx.loadMemory(c.id)).doc);
    return transition(ctx, c, { type: "reject", reason: c.reason });
  },
  "handoff.open": (ctx, c) => createInTier(ctx, "handoff", c.handoff),
  "handoff.update": (ctx, c) => reviseInTier(ctx, "handoff", c),
  "handoff.complete": (ctx, c) => transition(ctx, c, { type: "complete", summary: c.summary }),
  "feedback.give": giveFeedback,
  "recalls.record": recordRecalls,
  "key.merge": mergeKey,
  "tenant.change_settings": changeTenantSettings,
};
