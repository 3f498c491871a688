// Secrets recognised only by their label: a password assigned in config or code, and any value
// assigned to a name containing key, token, secret, auth, credential or access. These are the
// rules most likely to refuse honest text, so they run last (a provider's rule names the kind
// more precisely) and a value must pass an entropy floor and every allow-list before it counts.
import {
  containsAlphabetRun,
  isCodePath,
  isHarmlessName,
  isPlaceholderOrReference,
  namePrefixBefore,
} from "./secret-allowlist.ts";
import { assignmentSource, type SecretCandidate, type SecretRule } from "./secret-rule.ts";
import { containsStopword } from "./secret-stopwords.ts";

const lettersOnly = /^[a-zA-Z_.-]+$/;

// Names that hold something about a password rather than the password.
const passwordMetadata =
  /length|len\b|min|max|size|polic|rule|hint|label|placeholder|prompt|field|input|regex|pattern|file|path|env|var|name|id\b|url|uri|endpoint|reset|expir|change|require|strength|type|format|hash(?:er|ing)|encrypt|algorithm|method|scheme|validat|manager|mode|store|ref|complexity|age\b|history|attempt|retr|less/i;

// `pass` and `pwd` alone are common words and flags (`proxy_pass`, `--pass-arg`), so they count
// only right before the assignment (`DB_PASS=`, `"pwd":`); `password` may be followed by more
// of a name (`password_prod`), which is checked for words that describe a password instead.
const passwordLabel = String.raw`(?:passw(?:or)?d|passphrase)(?<name>[ \t\w.-]{0,20})|(?<![a-z])(?:pass|pwd)`;
// An unquoted value may contain `.` and `:` but not end with one (`password: hunter2.` ends a
// sentence). A run longer than any password is rejected before it is matched, so text like
// `pass=pass=pass=…` is not retried at every shorter length.
const passwordChar = String.raw`[^\s'"\x60;,&<>(){}\[\]]`;
const unquotedValue = String.raw`(?!${passwordChar}{129})(?:[^\s'"\x60;,&<>(){}\[\].:]|[.:](?=${passwordChar})){6,128}`;
const passwordPattern = new RegExp(
  String.raw`(?<label>${passwordLabel})[ \t'"]{0,3}(?:=|:{1,3}=|:(?!\/\/)|=>|\?=)[ \t]*(?:"(?<secret>[^"\n]{6,128})"|'(?<secret>[^'\n]{6,128})'|(?<secret>${unquotedValue})(?=[.:]?(?:[\s'"\x60;,&<>)\]}]|$)))`,
  "gi",
);

// Words and phrases standing for a password (`my awesome password`, `top secret`), and the
// e-mail address anonymous FTP takes as one.
const passwordStandIns: readonly RegExp[] = [
  /^[A-Za-z _.-]+$/,
  /passw(?:or)?d/i,
  /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i,
];

function isPasswordAllowed({ value, match }: SecretCandidate): boolean {
  return (
    passwordStandIns.some((shape) => shape.test(value)) ||
    isPlaceholderOrReference(value) ||
    isCodePath(value) ||
    passwordMetadata.test(match.groups?.name ?? "")
  );
}

const genericLabels: readonly string[] = [
  "access",
  "auth",
  "api",
  "credential",
  "creds",
  "key",
  "secret",
  "token",
];
const genericLabelStart = new RegExp(`^(?:${genericLabels.join("|")}|s(?![a-z]))`, "i");

// A label that runs on into a longer word of the same case (`keymem:`, `tokenizer:`,
// `KEYBOARD=`) names something else; one followed by another label (`apikey`, `SECRETKEY`), a
// plural `s`, or a new word (`secretKey`, `api_key`) is still a secret's name.
function isLongerWord(text: string, labelEnd: number): boolean {
  const last = text[labelEnd - 1] ?? "";
  const rest = text.slice(labelEnd, labelEnd + 12);
  const sameCase = last === last.toLowerCase() ? /^[a-z]+/.exec(rest) : /^[A-Z]+/.exec(rest);
  return sameCase !== null && !genericLabelStart.test(rest);
}

function isGenericAllowed({ value, match, text }: SecretCandidate): boolean {
  const label = match.groups?.label ?? "";
  // "api" counts only as a word of its own (`api_key`, `ApiKey`, `API_TOKEN`), not inside `rapid`.
  if (label.toLowerCase() === "api" && !/^(?:api|Api|API)$/.test(label)) return true;
  return (
    isLongerWord(text, match.index + label.length) ||
    lettersOnly.test(value) ||
    isPlaceholderOrReference(value) ||
    isCodePath(value) ||
    containsAlphabetRun(value) ||
    isHarmlessName(namePrefixBefore(text, match.index) + match[0]) ||
    containsStopword(value) !== undefined
  );
}

export const genericSecretRules = [
  {
    kind: "password_assignment",
    description: "a password in an assignment",
    pattern: passwordPattern,
    keywords: ["pass", "pwd"],
    // Human-chosen passwords are short and low in entropy; the floor only drops repeats like `aaaa11`.
    minEntropy: 2.5,
    allow: isPasswordAllowed,
  },
  {
    kind: "generic_secret",
    description: "a secret assigned to a key, token or credential name",
    // Passwords are left to the rule above, which knows their shapes better.
    // Values as gitleaks reads them; a run longer than the longest value is rejected before
    // it is matched, so text like `key=key=key=…` is not retried at every shorter length.
    pattern: new RegExp(
      assignmentSource(
        genericLabels.join("|"),
        String.raw`(?![\w.=-]{151})[\w.=-]{10,150}|(?![a-z0-9+/]{301})[a-z0-9][a-z0-9+/]{11,300}={0,3}`,
      ),
      "gi",
    ),
    keywords: genericLabels,
    minEntropy: 3.5,
    allow: isGenericAllowed,
  },
] as const satisfies readonly SecretRule[];
