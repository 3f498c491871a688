// What a principal may see, as the filters of both read models. The rule itself is the memory
// model's (`canSee`); these are its translations into RediSearch and SQL, and a property test
// holds them to it. A memory is visible when it is global, or in the principal's tenant and
// either team-scoped, written by the principal, or the principal is the tenant's primary agent.
import {
  type Principal,
  type SearchFilters,
  type Status,
  statuses,
  type Tier,
  tiers,
} from "@cairn/contracts";
import { reachedTags } from "../projections/lexical/lexical-index.ts";
import { escapeQueryText } from "../projections/lexical/query-syntax.ts";

/**
 * The RediSearch clause of what `principal` may see in any tier and status (a memory's links
 * and neighbours): `reach` with every tier and status.
 */
export function lexicalVisibility(principal: Principal): string {
  return `@reach:{${tiers.flatMap((tier) => reachedTags(principal, tier, statuses)).join("|")}}`;
}

/**
 * The RediSearch clause of what `principal` may see in `tier` and the statuses asked: one tag, `reach`
 * (see `reachTags`), where visibility, `@tier` and `@status` were three clauses.
 */
export function lexicalReach(principal: Principal, tier: Tier, asked: readonly Status[]): string {
  return `@reach:{${reachedTags(principal, tier, asked).join("|")}}`;
}

/**
 * The SQL condition of what `principal` may see, with its parameters from `$<first>`: `own`
 * for the memories of its tenant, `global` for those everybody sees, and `either` for both.
 * With `audience` (a partitioned vector table), each branch names its audience, so it reads
 * one partition.
 */
export function sqlVisibility(
  principal: Principal,
  first: number,
  audience = false,
): { own: string; global: string; either: string; params: unknown[] } {
  const tenant = `$${first}`;
  const inTenant = audience ? `audience = ${tenant}` : `tenant = ${tenant} and scope <> 'global'`;
  const global = audience ? "audience = ''" : "scope = 'global'";
  if (principal.primary)
    return {
      own: `(${inTenant})`,
      global: `(${global})`,
      either: `(tenant = ${tenant} or scope = 'global')`,
      params: [principal.tenant],
    };
  return {
    own: `(${inTenant} and (scope = 'team' or agent = $${first + 1}))`,
    global: `(${global})`,
    either: `((tenant = ${tenant} and (scope = 'team' or agent = $${first + 1})) or scope = 'global')`,
    params: [principal.tenant, principal.agent],
  };
}

/** Statuses searched when the filters name none: the live state of each tier. */
export function defaultStatuses(filters: Pick<SearchFilters, "tier" | "status">): Status[] {
  if (filters.status) return filters.status;
  return filters.tier === "proposal" ? ["pending"] : ["active"];
}

export { escapeQueryText };
