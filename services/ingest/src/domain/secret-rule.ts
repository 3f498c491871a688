/** A candidate secret as a rule's `allow` sees it, after its pattern matched. */
export type SecretCandidate = {
  /** What would be reported: the pattern's `secret` group when it has one, else the whole match. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
  /** The whole match, label included for a labelled rule; its groups hold `label` and `secret`. */
  readonly match: RegExpExecArray;
  readonly text: string;
};

/**
 * One kind of credential, as data. `kind` is the stable id a refusal carries. `pattern` must be
 * global; when it has a `secret` group only that group is reported and checked, so a label
 * such as `password =` is not counted as part of the secret. That group must end the match,
 * but for a closing quote. `keywords`
 * (lower case) gate the rule: it runs only on text that contains one of them, which keeps a
 * scan of long content cheap. A candidate whose Shannon entropy is not above `minEntropy`, or
 * that `allow` accepts, is not a finding.
 */
export type SecretRule = {
  readonly kind: string;
  readonly description: string;
  readonly pattern: RegExp;
  readonly keywords?: readonly string[];
  readonly minEntropy?: number;
  readonly allow?: (candidate: SecretCandidate) => boolean;
};

/**
 * The source of a pattern for a value assigned to `label`, in the shapes config files, shells
 * and code use: `label = v`, `label: v`, `"label": "v"`, `label := v`, `label => v`, `<label>v<`.
 * Up to 20 name characters may follow the label (`MAILGUN_PRIVATE_KEY`, `password for prod`).
 * A comma assigns only before a quoted value (`("api_key", "…")`, not `f(key, other)`), and `>`
 * only where a tag closes (`<apiKey>…`, not `key > limit`).
 * The value must end at a delimiter, so a longer run of the same alphabet is not cut to length.
 * Label and value stay on one line: a heading followed by a paragraph is not an assignment.
 */
export function assignmentSource(label: string, value: string): string {
  return String.raw`(?<label>${label})[ \t\w.-]{0,20}[ \t'"]{0,3}(?:=|(?<![ \t])>|:{1,3}=|\|\||:(?!\/\/)|=>|\?=|,(?=[ \t]*[\x60'"]))[ \t\x60'"=]{0,5}(?<secret>${value})(?=[\x60'"\s;,)\]}&<]|\\[nr]|$)`;
}

/**
 * A rule whose secret is recognised by its label (a provider's name near the assignment) and
 * the shape of its value, optionally with an `unlabelled` alternative for formats that are
 * distinctive alone; that source must name its own `secret` group. Both are matched
 * case-insensitively, as gitleaks matches them.
 */
export function labelledRule<K extends string>(spec: {
  kind: K;
  description: string;
  label: string;
  value: string;
  unlabelled?: string;
  keywords: readonly string[];
  minEntropy?: number;
  allow?: (candidate: SecretCandidate) => boolean;
}): SecretRule & { readonly kind: K } {
  const labelled = assignmentSource(spec.label, spec.value);
  const source = spec.unlabelled ? `${labelled}|${spec.unlabelled}` : labelled;
  return {
    kind: spec.kind,
    description: spec.description,
    pattern: new RegExp(source, "gi"),
    keywords: spec.keywords,
    ...(spec.minEntropy === undefined ? {} : { minEntropy: spec.minEntropy }),
    ...(spec.allow === undefined ? {} : { allow: spec.allow }),
  };
}
