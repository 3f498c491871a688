// Test-only stand-ins for ingest and search: they answer the contract subjects on a real NATS
// server from an in-memory list of documents, with the contract's visibility rules, version
// checks and two-step tokens. They let the gateway's own tests run before (and apart from)
// the real services; test/e2e runs the same surface against the real ones.
import { randomUUID } from "node:crypto";
import { serveRpc } from "@cairn/bus";
import {
  CairnError,
  type Candidate,
  ingestCommandSchemas,
  ingestSubject,
  type MemoryDocument,
  type Principal,
  searchSubjects,
  type Tier,
} from "@cairn/contracts";
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { z } from "zod";

export type ContractResponders = {
  documents: Map<string, MemoryDocument>;
  stop: () => void;
};

function visible(doc: MemoryDocument, p: Principal): boolean {
  if (doc.scope === "global") return true;
  if (doc.tenant !== p.tenant) return false;
  return doc.scope === "team" || doc.agent === p.agent || p.primary;
}

const loose = z.object({ principal: z.unknown() }).loose();

export function startContractResponders(nc: NatsConnection): ContractResponders {
  const documents = new Map<string, MemoryDocument>();
  const tokens = new Map<string, string>();
  let position = 0;
  const subs: Subscription[] = [];

  const find = (p: Principal, id: string) => {
    const doc = documents.get(id);
    if (!doc || !visible(doc, p)) throw new CairnError("not_found", `no memory ${id}`);
    return doc;
  };
  const check = (doc: MemoryDocument, expected: number) => {
    if (doc.version !== expected) {
      throw new CairnError("version_conflict", `version is ${doc.version}, not ${expected}`, {
        details: { currentVersion: doc.version },
      });
    }
  };
  const bump = (doc: MemoryDocument, changes: Partial<MemoryDocument>) => {
    position += 1;
    Object.assign(doc, changes, { version: doc.version + 1, updatedAt: new Date().toISOString() });
    return { id: doc.id, version: doc.version, position };
  };
  const create = (
    p: Principal,
    tier: Tier,
    input: z.infer<(typeof ingestCommandSchemas)["memory.create"]>["memory"],
  ) => {
    if (/sk-[A-Za-z0-9]{20,}/.test(input.content))
      throw new CairnError("secret_detected", "the content has a key");
    const taken = [...documents.values()].some(
      (d) =>
        d.tier === tier &&
        d.slot === input.slot &&
        d.tenant === p.tenant &&
        d.scope === input.scope &&
        (d.status === "active" || d.status === "pending"),
    );
    if (taken && tier === "memory") throw new CairnError("slot_taken", `slot ${input.slot} is taken`);
    position += 1;
    const now = new Date().toISOString();
    const doc: MemoryDocument = {
      id: randomUUID(),
      tier,
      status: tier === "proposal" ? "pending" : "active",
      slot: input.slot,
      kind: input.kind,
      content: input.content,
      title: input.title ?? input.slot,
      tags: input.tags,
      aliases: input.aliases,
      keys: input.keys,
      entities: [],
      links: [],
      sentiment: 0,
      scope: input.scope,
      tenant: p.tenant,
      agent: p.agent,
      project: input.project,
      source: input.source,
      validFrom: input.validFrom,
      invalidAt: null,
      verifiedAt: null,
      supersedes: null,
      supersededBy: null,
      promotedTo: null,
      promotedFrom: null,
      version: 1,
      contentHash: String(input.content.length),
      createdAt: now,
      updatedAt: now,
    };
    documents.set(doc.id, doc);
    return { id: doc.id, version: 1, position };
  };
  const plan = (id: string, action: string, doc: MemoryDocument) => {
    const token = randomUUID();
    tokens.set(token, `${id}:${action}:${doc.version}`);
    return {
      dryRun: true as const,
      plan: [{ id: doc.id, action, version: doc.version, slot: doc.slot }],
      token,
      expiresAt: new Date(Date.now() + 300_000).toISOString(),
    };
  };
  const useToken = (token: string | undefined, id: string, action: string, doc: MemoryDocument) => {
    if (!token || tokens.get(token) !== `${id}:${action}:${doc.version}`) {
      throw new CairnError("token_invalid", "the token does not match a current plan");
    }
    tokens.delete(token);
  };

  const handlers: {
    [N in keyof typeof ingestCommandSchemas]?: (cmd: z.infer<(typeof ingestCommandSchemas)[N]>) => unknown;
  } = {
    "memory.create": (c) => create(c.principal, "memory", c.memory),
    "proposal.submit": (c) => create(c.principal, "proposal", c.proposal),
    "handoff.open": (c) => create(c.principal, "handoff", c.handoff),
    "memory.update": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, c.changes as Partial<MemoryDocument>);
    },
    "proposal.revise": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, c.changes as Partial<MemoryDocument>);
    },
    "handoff.update": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, c.changes as Partial<MemoryDocument>);
    },
    "memory.delete": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      if (c.dryRun) return plan(c.id, "delete", d);
      useToken(c.token, c.id, "delete", d);
      return bump(d, { status: "deleted" });
    },
    "memory.supersede": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      if (c.dryRun) return plan(c.id, "supersede", d);
      useToken(c.token, c.id, "supersede", d);
      bump(d, { status: "superseded" });
      const created = create(c.principal, "memory", { ...c.replacement, slot: c.replacement.slot ?? d.slot });
      d.supersededBy = created.id;
      return created;
    },
    "memory.resolve_conflict": (c) => {
      find(c.principal, c.keepId);
      const other = find(c.principal, c.otherId);
      if (c.dryRun) return plan(c.otherId, c.action, other);
      useToken(c.token, c.otherId, c.action, other);
      return bump(other, {
        status: c.action === "supersede" ? "superseded" : c.action === "archive" ? "archived" : "deleted",
      });
    },
    "memory.invalidate": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { invalidAt: c.invalidAt });
    },
    "memory.verify": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { verifiedAt: new Date().toISOString() });
    },
    "memory.archive": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { status: "archived" });
    },
    "memory.restore": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { status: "active" });
    },
    "proposal.promote": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      if (d.status !== "pending") throw new CairnError("illegal_transition", `the proposal is ${d.status}`);
      const created = create(c.principal, "memory", { ...d, ...(c.changes ?? {}) } as never);
      bump(d, { status: "promoted", promotedTo: created.id });
      return created;
    },
    "proposal.reject": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { status: "rejected" });
    },
    "handoff.complete": (c) => {
      const d = find(c.principal, c.id);
      check(d, c.expectedVersion);
      return bump(d, { status: "completed" });
    },
    "feedback.give": (c) => {
      find(c.principal, c.memoryId);
      position += 1;
      return { id: c.memoryId, version: 1, position };
    },
    "recalls.record": () => {
      position += 1;
      return { id: randomUUID(), version: 1, position };
    },
  };

  for (const [name, handler] of Object.entries(handlers)) {
    const schema = ingestCommandSchemas[name as keyof typeof ingestCommandSchemas];
    subs.push(
      serveRpc(nc, {
        subject: ingestSubject(name as keyof typeof ingestCommandSchemas),
        schema,
        handler: (cmd) => (handler as (c: unknown) => unknown)(cmd),
      }),
    );
  }

  subs.push(
    serveRpc(nc, {
      subject: searchSubjects.candidates,
      schema: loose,
      handler: (raw) => {
        const req = raw as unknown as {
          principal: Principal;
          query: string;
          filters?: { tier?: Tier; status?: string[] };
          candidateK?: number;
        };
        const tier = req.filters?.tier ?? "memory";
        const statuses = req.filters?.status ?? [tier === "proposal" ? "pending" : "active"];
        const words = req.query === "*" ? [] : req.query.toLowerCase().split(/\W+/).filter(Boolean);
        const candidates: Candidate[] = [...documents.values()]
          .filter((d) => visible(d, req.principal) && d.tier === tier && statuses.includes(d.status))
          .map((d) => {
            const text = `${d.slot} ${d.title} ${d.content} ${d.keys.join(" ")}`.toLowerCase();
            return { d, hits: words.filter((w) => text.includes(w)).length };
          })
          .filter((x) => words.length === 0 || x.hits > 0)
          .sort((a, b) => b.hits - a.hits)
          .slice(0, req.candidateK ?? 50)
          .map((x, i) => ({
            id: x.d.id,
            document: x.d,
            lexical: { rank: i + 1, score: x.hits },
            vector: null,
            fused: 1 / (61 + i),
          }));
        return {
          candidates,
          position,
          positions: { lexical: position },
          embeddingModel: null,
          synonymsApplied: [],
        };
      },
    }),
    serveRpc(nc, {
      subject: searchSubjects.get,
      schema: loose,
      handler: (raw) => {
        const req = raw as unknown as { principal: Principal; id?: string; slot?: string };
        const doc = req.id
          ? find(req.principal, req.id)
          : [...documents.values()].find(
              (d) => d.slot === req.slot && d.status === "active" && visible(d, req.principal),
            );
        if (!doc) throw new CairnError("not_found", `no memory ${req.slot}`);
        return { document: doc, links: [], backlinks: [], position };
      },
    }),
  );

  return {
    documents,
    stop: () => {
      for (const s of subs) s.unsubscribe();
    },
  };
}
