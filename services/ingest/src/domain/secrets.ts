// Secret detection for every write, at the level of gitleaks' default rules: provider formats,
// key material and connection strings, provider-labelled values, and labelled generic secrets
// that pass an entropy floor and the allow-lists of documented examples and placeholders.
// What is reported never contains the secret itself, only its kind and position.
import { isDocumentedOrBlanked } from "./secret-allowlist.ts";
import { shannonEntropy } from "./secret-entropy.ts";
import { genericSecretRules } from "./secret-generic-rules.ts";
import { createKeywordIndex } from "./secret-keyword-index.ts";
import { labelledProviderRules } from "./secret-labelled-rules.ts";
import { codeAndInfrastructureRules } from "./secret-provider-rules.ts";
import type { SecretRule } from "./secret-rule.ts";
import { aiAndDeveloperServiceRules, messagingAndCommerceRules } from "./secret-saas-rules.ts";
import { httpCredentialRules, keyMaterialRules } from "./secret-structural-rules.ts";

// In order of precedence: when two rules find a secret at the same place, the earlier one
// names it, so a provider's token in `API_KEY=…` is reported as that provider's.
const orderedRules = [
  ...keyMaterialRules,
  ...codeAndInfrastructureRules,
  ...aiAndDeveloperServiceRules,
  ...messagingAndCommerceRules,
  ...labelledProviderRules,
  ...httpCredentialRules,
  ...genericSecretRules,
] as const;

export type SecretKind = (typeof orderedRules)[number]["kind"];

export const secretRules: readonly (SecretRule & { readonly kind: SecretKind })[] = orderedRules;

export type SecretFinding = { kind: SecretKind; description: string; start: number; end: number };

export type SecretScanOptions = {
  /**
   * Values a tenant has allow-listed as false positives: each entry is an exact value or the
   * source of a regular expression that must match the whole reported value.
   */
  allow?: readonly string[];
};

/** The first secret in `text` (the one that starts earliest), or undefined. */
export function findSecret(text: string, options: SecretScanOptions = {}): SecretFinding | undefined {
  return scan(text, compileTenantAllowList(options.allow));
}

/** The first secret in any of the named text fields (field names like `memory.content`, `changes.tags[2]`). */
export function findSecretInFields(
  fields: Iterable<readonly [string, string]>,
  options: SecretScanOptions = {},
): (SecretFinding & { field: string }) | undefined {
  const isTenantAllowed = compileTenantAllowList(options.allow);
  for (const [field, value] of fields) {
    const finding = scan(value, isTenantAllowed);
    if (finding) return { ...finding, field };
  }
  return undefined;
}

/** Every string inside a JSON-like value with its path, for scanning a whole command. */
export function* stringFields(value: unknown, path = ""): Generator<readonly [string, string]> {
  if (typeof value === "string") {
    yield [path, value];
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* stringFields(item, `${path}[${i}]`);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) yield* stringFields(item, path ? `${path}.${key}` : key);
  }
}

const keywordsIn = createKeywordIndex(secretRules.flatMap((rule) => rule.keywords ?? []));

function scan(text: string, isTenantAllowed: (value: string) => boolean): SecretFinding | undefined {
  const present = keywordsIn(text);
  let first: SecretFinding | undefined;
  for (const rule of secretRules) {
    if (rule.keywords && !rule.keywords.some((keyword) => present.has(keyword))) continue;
    const found = firstMatch(rule, text, first?.start ?? Number.POSITIVE_INFINITY, isTenantAllowed);
    if (found) first = found;
  }
  return first;
}

/** The rule's first accepted match that starts before `before`, or undefined. */
function firstMatch(
  rule: SecretRule & { readonly kind: SecretKind },
  text: string,
  before: number,
  isTenantAllowed: (value: string) => boolean,
): SecretFinding | undefined {
  const pattern = rule.pattern;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    // A `secret` group ends its match but for a closing quote, so its last occurrence in the
    // match is where it is (cheaper than asking the engine for indices on every match).
    const secret = match.groups?.secret;
    const start = secret === undefined ? match.index : match.index + match[0].lastIndexOf(secret);
    const value = secret ?? match[0];
    const end = start + value.length;
    if (start >= before) return undefined;
    if (rule.minEntropy !== undefined && shannonEntropy(value) <= rule.minEntropy) continue;
    if (isDocumentedOrBlanked(value) || isTenantAllowed(value)) continue;
    if (rule.allow?.({ value, start, end, match, text })) continue;
    return { kind: rule.kind, description: rule.description, start, end };
  }
  return undefined;
}

// Compiled tenant patterns, kept across calls since the same few lists come with every write.
const compiledAllowPatterns = new Map<string, RegExp | null>();

/** Whether a tenant's allow-list (exact values, or patterns of a whole value) lets `value` through. */
export function compileTenantAllowList(entries: readonly string[] | undefined): (value: string) => boolean {
  if (!entries || entries.length === 0) return () => false;
  const exact = new Set(entries);
  const patterns = entries.map(compileAllowPattern).filter((p): p is RegExp => p !== null);
  return (value) => exact.has(value) || patterns.some((pattern) => pattern.test(value));
}

function compileAllowPattern(source: string): RegExp | null {
  let compiled = compiledAllowPatterns.get(source);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(`^(?:${source})$`, "u");
    } catch {
      // Not a regular expression: the entry is only an exact value.
      compiled = null;
    }
    if (compiledAllowPatterns.size >= 1000) compiledAllowPatterns.clear();
    compiledAllowPatterns.set(source, compiled);
  }
  return compiled;
}
