// The one canonical form of a slot name. Ingest stores every slot in it, and importers and
// links compute it up front, so that two spellings of a name are one slot everywhere.

/**
 * A slot name in one canonical form so that `Project Package-Manager`, `project_package_manager`,
 * the full-width `ｐｒｏｊｅｃｔ－…` and a `prоject` typed with a Cyrillic `о` (U+043E) all
 * name the same slot: NFKC, look-alike letters folded to Latin in mixed-script words, lower
 * case, runs of spaces, underscores and dashes become one `-`, and only letters, digits, `-`,
 * `.`, `:` and `/` are kept (letters of any script, so Chinese slots work).
 */
export function normaliseSlot(raw: string): string {
  return raw
    .normalize("NFKC")
    .replace(/[^\s_\-–—.:/]+/gu, foldLookalikes)
    .toLowerCase()
    .trim()
    .replace(/[\s_\-–—]+/gu, "-")
    .replace(/[^\p{L}\p{N}\-.:/]/gu, "")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.:/]+|[-.:/]+$/g, "");
}

/**
 * A word that mixes Latin letters with letters of another script, with those letters replaced
 * by the Latin letters they look like (UTS #39 confusables): `dеploy` with a Cyrillic `е`
 * (U+0435) becomes `deploy`. A word written wholly in one script is left alone, so `проект`,
 * `λόγος` and `项目` stay real, readable words; folding them too (the full TR39 skeleton) would
 * turn Cyrillic `рау` into `pay` and make Cyrillic slots unreadable. Mixing scripts inside one
 * word is almost always a spoof or a keyboard-layout slip, so that is where folding pays.
 */
function foldLookalikes(word: string): string {
  if (
    !/\p{Script=Latin}/u.test(word) ||
    !/[^\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(word)
  ) {
    return word;
  }
  let folded = "";
  for (const ch of word) folded += latinLookalikes.get(ch) ?? ch;
  return folded;
}

// Letters of other scripts and the Latin letters they look like, as `code point:Latin`, grouped
// by script. Generated from Unicode's confusables.txt (UTS #39, version 17.0.0), keeping entries
// whose source is one letter outside the Latin, Common and Inherited scripts that NFKC leaves
// alone and whose prototype is made of ASCII letters or digits. Where the prototype is a letter
// that other Latin letters share (`I`, `l` and `1` all have prototype `l`), the Latin letter of
// the same case is used, since Latin letters themselves are not folded here: Greek `Ι`
// (U+0399) → `I`.
const latinLookalikeTable = `
  Cyrillic A644:2 0417:3 04E0:3 0431:6 0430:a 0410:A 04D5:ae 04D4:AE 042C:b 0412:B 042B:bl 0441:c 0421:C
    0501:d 0435:e 04BD:e 0415:E 050C:G 04BB:h 041D:H 0456:i A647:i 0458:j 0408:J 041A:K 0406:I 04CF:l
    04C0:I 042E:lO 041C:M 043E:o 041E:O A699:oo A698:OO 0440:p 0420:P 051B:q 0433:r 0455:s 0405:S 0422:T
    0475:v 0474:V 0461:w 0448:w 051D:w 051C:W 0445:x 0425:X 0443:y 04AF:y 0423:Y 04AE:Y
  Greek 03B1:a 0391:A 0392:B 0395:E 03DC:F 0397:H 03B9:i 03F3:j 037F:J 039A:K 0399:I 039C:M 03FA:M 039D:N
    03BF:o 03C3:o 039F:O 03C1:p 03F8:p 03A1:P 1D26:r 03A4:T 03C5:u 03BD:v 03A7:X 03B3:y 03A5:Y 0396:Z
  Armenian 0584:f 0581:g 0570:h 0582:i 0578:n 057C:n 0585:o 0555:O 0563:q 0566:q 054F:S 057D:u 054D:U
    0561:w
  Cherokee 13CE:4 13EE:6 13AA:A 13CF:b 13F4:B ABAF:c 13DF:C 13E7:d 13A0:D 13AC:E 13C0:G 13F3:G 13C2:h
    13BB:H AB75:i 13A5:i 13AB:J 13E6:K 13DE:L 13B7:M 13E2:P AB81:r 13A1:R 13D2:R ABAA:s 13D5:S 13DA:S
    13A2:T ABA9:v 13D9:V AB83:w 13B3:W 13D4:W 13A9:Y 13BD:Y AB93:z 13C3:Z
  Coptic 03E8:2 2C9C:3 2CC4:3 2CCC:3 2CD3:6 2CD2:6 03EC:6 2CDC:6 2CCB:9 2CCA:9 2C82:B 2CA5:c 2CA4:C 2C8E:H
    2C93:i 2C94:K 2C92:I 2CD0:L 2C98:M 2C9A:N 2C9F:o 03ED:o 2C9E:O 2CA3:p 2CCF:p 2CA2:P 2CCE:P 2C85:r
    2CA6:T 2CBD:w 2CAC:X 2CA9:y 2CA8:Y
  Lisu A4EE:A A4D0:B A4DA:C A4D2:d A4D3:D A4F0:E A4DD:F A4D6:G A4E7:H A4D9:J A4D7:K A4F2:I A4E1:L A4DF:M
    A4E0:N A4F3:O A4D1:P A4E3:R A4E2:S A4D4:T A4F4:U A4E6:V A4EA:W A4EB:X A4EC:Y A4DC:Z
  Ahom 11700:m 11706:v 1170A:w 1170E:w 1170F:w
  Arabic 0627:I 0647:o 06BE:o 06C1:o 06D5:o
  Bamum A6DF:V
  Canadian_Aboriginal 14BF:2 15C5:A 1472:b 15AF:b 15F7:B 146F:d 15DE:D 15EA:D 15B4:F 157C:H 148D:J 14AA:L
    15F0:M 146D:P 1587:R 144C:U 142F:V 1541:x 157D:x
  Carian 102A0:A 102A1:B 102A2:C 102A5:F 102CF:H 102B0:M 102AB:O 102B1:T 102B4:X 102B2:Y
  Deseret 1043D:c 10415:C 1041B:L 1042C:o 10404:O 10448:s 10420:S
  Elbasan 1051C:C 10525:F 10518:K 10526:L 10513:N 10516:O 1051D:V 10527:X
  Ethiopic 12D0:O 1200:U
  Georgian 10FF:o 10E7:y
  Hebrew 05D5:I 05DF:I 05F0:ll 05E1:o 05D8:v
  Lycian 10282:B 10286:E 10287:F 1028A:I 10292:O 10295:P 10296:S 10297:T 10290:X
  Malayalam 0D20:o 0D1F:s
  Miao 16F3B:3 16F40:A 16F28:I 16F16:L 16F35:R 16F3A:S 16F0A:T 16F42:U 16F08:V 16F43:Y
  Myanmar 1004:c 105A:c 101D:o
  Nko 07CA:I
  Old_Italic 1031A:8 10301:B 10302:C 10309:I 10311:M 10315:T 10317:X
  Oriya 0B20:O
  Osage 104D2:7 104EA:o 104C2:O 104B4:R 104F6:u 104CE:U
  Other 16EB6:b 11DDA:I 16EAA:I
  Runic 16D5:K 16C1:I 16D6:M 16B7:X
  Tifinagh 2D39:E 2D4F:I 2D54:O 2D55:Q 2D38:V 2D5D:X
  Warang_Citi 118CA:3 118AF:4 118BB:5 118D5:6 118C6:7 118CC:9 118AC:9 118D6:9 118A6:E 118AE:E 118C2:F
    118A2:F 118C3:i 118A3:L 118B2:L 118C8:o 118D7:o 118B5:O 118C1:s 118BC:T 118D8:u 118B8:U 118C0:v
    118A0:V 118DC:y 118A4:Y 118C4:z 118A9:Z
`;

const latinLookalikes: ReadonlyMap<string, string> = new Map(
  [...latinLookalikeTable.matchAll(/([0-9A-F]{4,6}):([A-Za-z0-9]+)/g)].map(([, codePoint, latin]) => [
    String.fromCodePoint(Number.parseInt(codePoint ?? "", 16)),
    latin ?? "",
  ]),
);
