/**
 * Finds which of many lower-case ASCII keywords occur in a text, case-insensitively, in one
 * pass: a table of the keywords' first two characters says where a keyword may start, and
 * only there are the candidates with the same first three characters compared. Testing each
 * of a few hundred keywords with `includes` would read a 32,000-character content hundreds of
 * times; this reads it once.
 */
export function createKeywordIndex(keywords: Iterable<string>): (text: string) => ReadonlySet<string> {
  // Per pair of first characters: bit 1 when a longer keyword starts so, bit 2 when the pair
  // is itself a keyword.
  const startsWithPair = new Uint8Array(128 * 128);
  const pairKeywords = new Map<number, string>();
  const byFirstThree = new Map<number, string[]>();
  for (const keyword of new Set(keywords)) {
    if (keyword.length < 2 || !/^[\x20-\x7e]+$/.test(keyword) || keyword !== keyword.toLowerCase()) {
      throw new Error(
        `keyword ${JSON.stringify(keyword)} must be lower-case ASCII of two or more characters`,
      );
    }
    const pair = (keyword.charCodeAt(0) << 7) | keyword.charCodeAt(1);
    if (keyword.length === 2) {
      startsWithPair[pair] = startsWithPair[pair]! | 2;
      pairKeywords.set(pair, keyword);
    } else {
      startsWithPair[pair] = startsWithPair[pair]! | 1;
      const three = (pair << 7) | keyword.charCodeAt(2);
      byFirstThree.set(three, [...(byFirstThree.get(three) ?? []), keyword]);
    }
  }

  return (text) => {
    const found = new Set<string>();
    const length = text.length;
    let a = length > 0 ? lowerAscii(text.charCodeAt(0)) : 0;
    for (let i = 0; i + 1 < length; i++) {
      const b = lowerAscii(text.charCodeAt(i + 1));
      if ((a | b) < 128) {
        const pair = (a << 7) | b;
        const flags = startsWithPair[pair]!;
        if (flags & 2) found.add(pairKeywords.get(pair)!);
        if (flags & 1 && i + 2 < length) {
          const candidates = byFirstThree.get((pair << 7) | lowerAscii(text.charCodeAt(i + 2)));
          for (const keyword of candidates ?? []) {
            if (!found.has(keyword) && occursAt(text, i, keyword)) found.add(keyword);
          }
        }
      }
      a = b;
    }
    return found;
  };
}

function lowerAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

/** Whether `keyword`, whose first three characters are known to match, occurs at `start`. */
function occursAt(text: string, start: number, keyword: string): boolean {
  if (start + keyword.length > text.length) return false;
  for (let j = 3; j < keyword.length; j++) {
    if (lowerAscii(text.charCodeAt(start + j)) !== keyword.charCodeAt(j)) return false;
  }
  return true;
}
