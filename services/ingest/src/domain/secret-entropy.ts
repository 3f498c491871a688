// Counts per UTF-16 code unit, reused across calls: entropy is computed for every candidate of
// every rule, so it must not allocate.
const counts = new Uint32Array(1 << 16);

/**
 * Shannon entropy of `value` in bits per character: about 4.7 for random base64, 3.7 for random
 * hex, and under 3 for most words and placeholders. Rules use it to tell a generated credential
 * from a name or a sentence that happens to sit in the same place.
 */
export function shannonEntropy(value: string): number {
  const length = value.length;
  if (length === 0) return 0;
  for (let i = 0; i < length; i++) counts[value.charCodeAt(i)]!++;
  let bits = 0;
  for (let i = 0; i < length; i++) {
    const code = value.charCodeAt(i);
    const n = counts[code]!;
    if (n === 0) continue;
    const p = n / length;
    bits -= p * Math.log2(p);
    counts[code] = 0;
  }
  return bits;
}
