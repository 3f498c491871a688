// What `pnpm cairn config` may print of a setting: secrets never. A setting whose name says it
// holds a secret shows only whether it is set; a URL shows everything but its password.

const secretName = /(SECRET|PASSWORD|API_KEY|ADMIN_KEY|TOKEN|SEED)(_|$)/;

export const maskedValue = "********";

export function maskSetting(name: string, value: string): string {
  if (value === "") return value;
  // A file holding a secret is only a path.
  if (secretName.test(name) && !name.endsWith("_FILE")) return maskedValue;
  return maskUrlPasswords(value);
}

/** `postgres://cairn:s3cret@db/cairn` → `postgres://cairn:********@db/cairn` (every URL in a list). */
export function maskUrlPasswords(value: string): string {
  return value.replace(
    /([a-z][a-z0-9+.-]*:\/\/[^/\s:@,]*:)([^@\s/]*)@/gi,
    (_all, before: string, password: string) => (password === "" ? `${before}@` : `${before}${maskedValue}@`),
  );
}
