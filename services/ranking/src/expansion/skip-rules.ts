// Skip rules: trivial queries, and every query while a workflow lock holds, are answered
// with nothing before any index is touched. Pure.
import type { SkipReason, TenantSettings } from "@cairn/contracts";

/**
 * Acknowledgements and greetings that are never a request for memories, in English and
 * Chinese (the languages agents most often answer in). A whole query must be one of them.
 */
export const builtInSkipPatterns: string[] = [
  "(ok|okay|k|kk|yes|yep|yeah|no|nope|sure|fine|cool|nice|great|good|perfect|right|alright|done|noted|understood|roger)",
  "(got it|sounds good|makes sense|thanks|thank you|thx|ty|cheers|hi|hello|hey|bye|continue|go on|go ahead)",
  "(好的|好|嗯|嗯嗯|收到|明白|知道了|谢谢|多谢|可以|行|对|是的|继续)",
];

const trailing = "[\\s.!?,;:~。！？，、…]*";

function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^\\s*(?:${pattern})${trailing}$`, "iu");
  } catch {
    return undefined;
  }
}

const builtIn = builtInSkipPatterns.map((p) => [p, compile(p)] as const);

/**
 * The reason to skip `query`, or null. Tenant patterns are regular expressions matched
 * against the whole query (case-insensitive); one that does not compile is matched as text.
 */
export function skipReason(query: string, settings: TenantSettings, now: Date): SkipReason | null {
  const lock = settings.workflowLock;
  if (lock && Date.parse(lock.expiresAt) > now.getTime()) {
    return { reason: "workflow_lock", expiresAt: lock.expiresAt, lockReason: lock.reason };
  }
  const trimmed = query.trim();
  if (trimmed.length === 0) return { reason: "skip_pattern", pattern: "(empty)" };
  for (const [pattern, regex] of builtIn)
    if (regex?.test(trimmed)) return { reason: "skip_pattern", pattern };
  for (const pattern of settings.skipPatterns) {
    const regex = compile(pattern);
    const hit = regex ? regex.test(trimmed) : trimmed.toLowerCase() === pattern.trim().toLowerCase();
    if (hit) return { reason: "skip_pattern", pattern };
  }
  return null;
}
