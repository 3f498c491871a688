import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

/**
 * Annotations of a tool that changes what Cairn holds: `destructive` where it removes or
 * replaces a memory, `idempotent` where calling it again changes nothing more.
 */
export function writeAnnotations(
  hints: { destructive?: boolean; idempotent?: boolean } = {},
): ToolAnnotations {
  return {
    readOnlyHint: false,
    destructiveHint: hints.destructive ?? false,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: false,
  };
}
