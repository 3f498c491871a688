// Credentials recognised by their structure rather than a provider's prefix: private key
// blocks, signed JSON Web Tokens, URLs and connection strings with a password, and HTTP
// authorisation written out in a header or a curl command.
import { isPlaceholderOrReference } from "./secret-allowlist.ts";
import type { SecretRule } from "./secret-rule.ts";

/** Key material: checked first, so a key inside a labelled assignment is reported as what it is. */
export const keyMaterialRules = [
  {
    kind: "private_key",
    description: "a private key block",
    // A header alone is enough: what follows it is the key, even when a field cut it short.
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----|PuTTY-User-Key-File-[23]: [\w-]+/g,
    keywords: ["-----begin", "---- begin", "putty-user-key-file"],
    // A header alone in quotes is code looking for one (`pem.startsWith("-----BEGIN …")`).
    allow: ({ text, start, end }) =>
      /["'\x60]/.test(text[start - 1] ?? "") && /["'\x60]/.test(text[end] ?? ""),
  },
  {
    kind: "age_secret_key",
    description: "an age encryption secret key",
    pattern: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g,
    keywords: ["age-secret-key-1"],
  },
  {
    kind: "jwt",
    description: "a JSON Web Token",
    pattern: /\beyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,8000}\.[A-Za-z0-9_-]{16,2000}/g,
    keywords: ["eyj"],
    minEntropy: 3,
  },
  {
    kind: "connection_string_password",
    description: "a connection string with a password",
    pattern:
      /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|oracle|clickhouse|cockroachdb|couchbases?|cassandra|neo4j(?:\+s)?|bolt|snowflake|nats|kafka|ftp|ftps|sftp|smtps?|imaps?|pop3s?|ldaps?|https?|wss?|git|svn)(?:\+[a-z0-9]+)?:\/\/[^\s:/@'"]*:(?<password>[^\s@/'"]+)@[^\s/'"]+/gi,
    keywords: ["://"],
    allow: ({ match }) => isPlaceholderPassword(decodeURIComponentSafely(match.groups?.password ?? "")),
  },
] as const satisfies readonly SecretRule[];

/** HTTP credentials: checked after the providers, so a recognisable token keeps its own kind. */
export const httpCredentialRules = [
  {
    kind: "authorization_header",
    description: "an HTTP Authorization header with a credential",
    pattern:
      /\b(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:bearer|basic|token|api-?key)[ \t]+(?<secret>[A-Za-z0-9~+/._=-]{16,4096})/gi,
    keywords: ["authorization"],
    minEntropy: 3.5,
    allow: ({ value }) => isPlaceholderOrReference(value),
  },
  {
    kind: "curl_user_password",
    description: "a user name and password passed to curl",
    // The option is found first and the command checked after, on its line: scanning forward
    // from every `curl` to an option that may never come costs hundreds of steps each.
    pattern:
      /(?<=[ \t])(?:-u|--user)(?:=|[ \t]{1,5})(?<secret>"[^"\n:]{1,64}:[^"\n]{3,128}"|'[^'\n:]{1,64}:[^'\n]{3,128}'|[\w$@.-]{1,64}:[^\s'"]{3,128})/g,
    keywords: ["curl"],
    minEntropy: 2,
    allow: ({ value, match, text }) =>
      !/\bcurl\b/.test(text.slice(text.lastIndexOf("\n", match.index) + 1, match.index)) ||
      isPlaceholderOrReference(value.replace(/^["']|["']$/g, "").replace(/^[^:]*:/, "")),
  },
] as const satisfies readonly SecretRule[];

// Documentation writes `user:password@`, `:authpassword@` or `abc:xyz@`; a password is at
// least four characters and does not describe itself.
function isPlaceholderPassword(password: string): boolean {
  return password.length < 4 || /passw(?:or)?d/i.test(password) || isPlaceholderOrReference(password);
}

function decodeURIComponentSafely(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
