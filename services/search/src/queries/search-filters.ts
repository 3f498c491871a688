// The filters of a candidates request, as a RediSearch clause, as a SQL condition, and as a
// predicate over a document (for reads as of a past point, folded from the log). All three
// say the same thing: the tests run every filter through each of them.
import type { MemoryDocument, Principal, SearchFilters } from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import { identityTag, neverExpires } from "../projections/lexical/lexical-index.ts";
import { normalizeTag, tagClause } from "../projections/lexical/query-syntax.ts";
import type { VectorFilter } from "../projections/vector/vector-store.ts";
import { defaultStatuses, lexicalReach, sqlVisibility } from "./visibility.ts";

function range(field: string, from: string | undefined, to: string | undefined): string | null {
  if (from === undefined && to === undefined) return null;
  const low = from === undefined ? "-inf" : String(Date.parse(from));
  const high = to === undefined ? "+inf" : String(Date.parse(to));
  return `@${field}:[${low} ${high}]`;
}

/**
 * "Not expired" as the range of the unexpired (every memory has an `invalid_at`; one that never
 * expires, the year 9999). Not as the expired range left out, which would walk only the few
 * expired memories: once documents have been replaced, RediSearch's negation of a numeric
 * range can also leave out a document whose value is not in the range (RediSearch 1.2; its
 * numeric negation has open reports in later versions too), so a memory given a future expiry
 * went missing.
 */
function notExpired(now: number): string {
  return `@invalid_at:[(${Math.min(now, neverExpires - 1)} +inf]`;
}

/**
 * Whether nothing the principal may see has expired: the earliest expiry among it (its tenant
 * view's; null when none has one) lies ahead. Unknown (undefined) is not nothing.
 */
function nothingExpired(earliestExpiry: number | null | undefined, now: number): boolean {
  return earliestExpiry === null || (earliestExpiry !== undefined && earliestExpiry > now);
}

/**
 * Visibility and filters as RediSearch clauses (intersected with the text part); `null` when
 * the filters can match nothing (a tag or project of only separators). With the earliest
 * expiry of what the principal may see (`TenantView.earliestExpiry`), "not expired" is asked
 * only when something may have expired: the range of the unexpired is most of an index, and
 * intersecting it is about a third of a match's work at 100,000 memories.
 */
export function lexicalFilterClauses(
  principal: Principal,
  filters: SearchFilters,
  now: number,
  earliestExpiry?: number | null,
): string[] | null {
  const clauses: (string | null)[] = [
    lexicalReach(principal, filters.tier, defaultStatuses(filters)),
    filters.kind ? tagClause("kind", filters.kind) : null,
    ...(filters.tags ?? []).map((t) => tagClause("tags", [t])),
    filters.anyTags ? tagClause("tags", filters.anyTags) : null,
    filters.scope ? tagClause("scope", filters.scope) : null,
    filters.project !== undefined ? tagClause("project", [filters.project]) : null,
    filters.agent !== undefined ? `@agent:{${identityTag(filters.agent)}}` : null,
    range("created", filters.createdFrom, filters.createdTo),
    range("updated", filters.updatedFrom, filters.updatedTo),
    filters.includeExpired || nothingExpired(earliestExpiry, now) ? null : notExpired(now),
  ];
  const emptyValue =
    (filters.tags ?? []).some((t) => normalizeTag(t) === "") ||
    filters.anyTags?.every((t) => normalizeTag(t) === "") === true ||
    (filters.project !== undefined && normalizeTag(filters.project) === "");
  if (emptyValue) return null;
  return clauses.filter((c): c is string => c !== null);
}

/**
 * Visibility and filters as SQL conditions over a vector table, parameters from `$2`: `sql`
 * (with `params`) for everything the principal may see, `own` and `global` for its two parts,
 * each with its own parameters (see `sqlVisibility`; `audience` for a table partitioned by
 * audience, where the two are asked apart).
 */
export function vectorFilter(
  principal: Principal,
  filters: SearchFilters,
  now: number,
  audience = false,
): VectorFilter {
  const visibility = sqlVisibility(principal, 2, audience);
  const after = filterConditions(filters, now, 2 + visibility.params.length);
  const where = (visible: string, conditions: readonly string[]) => [visible, ...conditions].join(" and ");
  const params = [...visibility.params, ...after.params];
  // The global part names no principal: its conditions are numbered from `$2`.
  const alone = filterConditions(filters, now, 2);
  return {
    sql: where(visibility.either, after.conditions),
    params,
    own: { sql: where(visibility.own, after.conditions), params },
    global: { sql: where(visibility.global, alone.conditions), params: alone.params },
  };
}

/** The filters as SQL conditions, their parameters numbered from `$<first>`. */
function filterConditions(
  filters: SearchFilters,
  now: number,
  first: number,
): { conditions: string[]; params: unknown[] } {
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return `$${first + params.length - 1}`;
  };
  const conditions = [`tier = ${next(filters.tier)}`, `status = any(${next(defaultStatuses(filters))})`];
  if (filters.kind) conditions.push(`kind = any(${next(filters.kind)})`);
  if (filters.tags && filters.tags.length > 0)
    conditions.push(`tags @> ${next(filters.tags.map(normalizeTag))}::text[]`);
  if (filters.anyTags) conditions.push(`tags && ${next(filters.anyTags.map(normalizeTag))}::text[]`);
  if (filters.scope) conditions.push(`scope = any(${next(filters.scope)})`);
  if (filters.project !== undefined) conditions.push(`project = ${next(normalizeTag(filters.project))}`);
  if (filters.agent !== undefined) conditions.push(`agent = ${next(filters.agent)}`);
  if (filters.createdFrom) conditions.push(`created_at >= ${next(filters.createdFrom)}`);
  if (filters.createdTo) conditions.push(`created_at <= ${next(filters.createdTo)}`);
  if (filters.updatedFrom) conditions.push(`updated_at >= ${next(filters.updatedFrom)}`);
  if (filters.updatedTo) conditions.push(`updated_at <= ${next(filters.updatedTo)}`);
  if (!filters.includeExpired)
    conditions.push(`(invalid_at is null or invalid_at > ${next(new Date(now).toISOString())})`);
  return { conditions, params };
}

/** Visibility and filters over one document, at time `now` (for `includeExpired`). */
export function matchesFilters(
  doc: MemoryDocument,
  principal: Principal,
  filters: SearchFilters,
  now: number,
): boolean {
  if (!canSee(doc, principal) || doc.tier !== filters.tier) return false;
  if (!defaultStatuses(filters).includes(doc.status)) return false;
  if (filters.kind && !filters.kind.includes(doc.kind)) return false;
  const tags = new Set(doc.tags.map(normalizeTag));
  if (filters.tags && !filters.tags.every((t) => tags.has(normalizeTag(t)))) return false;
  if (filters.anyTags && !filters.anyTags.some((t) => tags.has(normalizeTag(t)))) return false;
  if (filters.scope && !filters.scope.includes(doc.scope)) return false;
  if (
    filters.project !== undefined &&
    (doc.project === null || normalizeTag(doc.project) !== normalizeTag(filters.project))
  )
    return false;
  if (filters.agent !== undefined && doc.agent !== filters.agent) return false;
  const within = (at: string, from?: string, to?: string) =>
    (from === undefined || Date.parse(at) >= Date.parse(from)) &&
    (to === undefined || Date.parse(at) <= Date.parse(to));
  if (!within(doc.createdAt, filters.createdFrom, filters.createdTo)) return false;
  if (!within(doc.updatedAt, filters.updatedFrom, filters.updatedTo)) return false;
  if (!filters.includeExpired && doc.invalidAt !== null && Date.parse(doc.invalidAt) <= now) return false;
  return true;
}
