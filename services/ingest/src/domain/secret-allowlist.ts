// What looks like a credential but is not one: keys published in documentation as examples,
// placeholders people write instead of a value, and references to where a value is kept.
// Modelled on gitleaks' global and per-rule allow-lists (github.com/gitleaks/gitleaks,
// config/gitleaks.toml), widened for prose and config snippets.

const jwtIoExample = [
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
  "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ",
  "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
].join(".");

/** Published as examples by AWS, jwt.io, Stripe and Google; never a live credential. */
export const documentedExampleSecrets: ReadonlySet<string> = new Set([
  "AKIAIOSFODNN7EXAMPLE",
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "AKIAI44QH8DHBEXAMPLE",
  "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
  jwtIoExample,
  // Stripe's documentation test key, split so that this file holds no key-shaped literal.
  ["sk", "test", "4eC39HqLyjWDarjtT1zdp7dc"].join("_"),
  ["AIza", "Syabcdefghijklmnopqrstuvwxyz1234567"].join(""),
  // PyJWT's README token, signed with "secret".
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzb21lIjoicGF5bG9hZCJ9.4twFt5NiznN84AWoo1d7KO1T_yoc0Z6XOpOVswacPZg",
  // OAuth 1.0 (RFC 5849), OAuth 2.0 (RFC 6749) and WebSocket (RFC 6455) examples.
  "hh5s93j4hdidpola",
  "hdhd0244k9j7ao03",
  "nnch734d00sl2jdk",
  "kllo9940pd9333jh",
  "2YotnFZFEjr1zCsicMWpAA",
  "tGzv3JOkF0XG5Qx2TlKWIA",
  "SplxlOBeZQQYbYS6WxSbIA",
  "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
  "dGhlIHNhbXBsZSBub25jZQ==",
  "x3JJHMbDL1EzLkh9GBhXDw==",
]);

// A run of x, *, dots or bullets is how documentation blanks a value (`AKIAXXXXXXXXXXXXXXXX`,
// `sk_live_xxxx…`); a random token holds four of them in a row with negligible probability.
const blankedRun = /x{4,}|X{4,}|\*{3,}|•{3,}|\.{3}|…/;

/** A documented example or a blanked-out value, whatever rule matched it. */
export function isDocumentedOrBlanked(value: string): boolean {
  return documentedExampleSecrets.has(value) || value.includes("EXAMPLE") || blankedRun.test(value);
}

// Template and environment placeholders (gitleaks' global allow-list, anchored), then the
// brackets and the words people write instead of a value.
const placeholderShapes: readonly RegExp[] = [
  /^(?:true|false|null|nil|none|undefined)$/i,
  /^([a-z*.])\1*$/i,
  /^\$(?:\d+|\{\d+\})$/,
  /^\$[A-Za-z_][A-Za-z0-9_]*$/,
  /^\$\{[^}\n]*\}$/,
  /^\$\([^)\n]*\)$/,
  /^\$?\{\{[^}\n]*\}\}$/,
  /^%\(?[A-Za-z_]*\)?[sd]?%?$/,
  /^%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$/,
  /^\{\d{0,2}\}$/,
  /^@[A-Za-z_]+@$/,
  /^<[^>\n]*>$/,
  /^\[[^\]\n]*\]$/,
  /^\{[^}\n]*\}$/,
  /your|goes[-_ ]?here|[-_ ]here$|placeholder|redacted|example|sample|dummy|changeme|change[-_]me|changeit|not[-_]?set/i,
  /^(?:insert|replace|enter|paste|put|fill)[-_ ]/i,
  /^(?:secret|password|passwd|pass|pwd|token|key|apikey|api[-_]key|test|testing|demo|default|admin|root|guest|user|value|foo|bar|foobar|hidden|masked|removed|omitted|empty|todo|tbd|fixme)[-_.!@#]*\d{0,4}[-_.!@#]*$/i,
];

// Where a value is kept rather than the value: a variable, a config lookup, a secret-manager
// reference, a path or a URL (connection strings with passwords have their own rule).
const referenceShapes: readonly RegExp[] = [
  /^!?(?:process\.env|import\.meta\.env|os\.environ|os\.getenv|env|ENV|config|settings|secrets|vars|self|this|ctx|context|props|params|options|opts|args|req|request)[.[(]/,
  /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/,
  /^(?:arn|vault|op|ssm|secretsmanager|keyvault|sm|gcp-secret|aws-sm):/i,
  /^(?:[a-z][a-z0-9+.-]*:\/\/|\/(?:bin|etc|home|opt|tmp|usr|var|run|srv|mnt|data|app|secrets|Users|Library|private)\/|~\/|\.\.?\/|[A-Za-z]:\\)/,
  /^!\w+$/,
];

/**
 * An attribute or class named in code (`settings.SECRET_KEY`, `ed25519.Ed25519PrivateKey`,
 * `result?.pass`). Only for the generic rules: a provider's dotted token (`t1.…`) can look the same.
 */
export function isCodePath(value: string): boolean {
  return /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(value);
}

/** A placeholder or a reference standing where a labelled value would be. */
export function isPlaceholderOrReference(value: string): boolean {
  return (
    isDocumentedOrBlanked(value) ||
    placeholderShapes.some((shape) => shape.test(value)) ||
    referenceShapes.some((shape) => shape.test(value))
  );
}

// Names that contain a secret-ish word but hold no secret (gitleaks' generic-api-key match
// allow-list, plus a few of its own): ids, names, sizes, public keys, hashes, and words that
// merely contain "key", "auth" or "api".
const harmlessNames = new RegExp(
  [
    "access(?:ibility|or)|access[_.-]?id|random[_.-]?access",
    "api[_.-]?(?:id|name|version)|rapid|capital",
    "author|x-ms-exchange-organization-auth|authentication-results",
    "credentials?[_.-]?id|withcredentials",
    "(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence)[ _.-]?key|turkey|monkey|donkey|keying",
    "key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)",
    "key[_.-]?vault[_.-]?(?:id|name)|keyvaulttostoresecrets|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash",
    "secret[_.-]?(?:length|name|size|ref|arn|id|key[_.-]?ref)|usersecretsid",
    "csrf[_.-]?token|public[_.-]?token|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])",
    "(?:key|token)[_.-]?(?:file|path|type|count|limit|budget|usage)|max[_.-]?tokens?|tokens?[_.-]?(?:max|limit|count|budget)",
    "websocket-key|pin-sha256|ping-sha256|fingerprint|checksum|digest|integrity",
  ].join("|"),
  "i",
);

// An alphabet or digit table (`"0123456789ABCDEF…"`, `"abcdefghijklmnopqrstuvwxyz"`) is a
// constant in code, not a credential: ten or more letters or digits in ascending order.
export function containsAlphabetRun(value: string): boolean {
  const lower = value.toLowerCase();
  let run = 1;
  for (let i = 1; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    const ascending = code === lower.charCodeAt(i - 1) + 1 && /[0-9a-z]/.test(lower[i] ?? "");
    run = ascending ? run + 1 : 1;
    if (run >= 10) return true;
  }
  return false;
}

/** Whether the assignment's name (`primaryKey`, `key_length`, `public_token`) rules out a secret. */
export function isHarmlessName(name: string): boolean {
  return harmlessNames.test(name);
}

/** The identifier that ends where `labelStart` begins (`MY_APP_` before `SECRET`), at most 50 characters. */
export function namePrefixBefore(text: string, labelStart: number): string {
  let start = labelStart;
  while (start > 0 && labelStart - start < 50 && /[\w.-]/.test(text[start - 1] ?? "")) start--;
  return text.slice(start, labelStart);
}
