// The MCP server of the gateway for one caller, without HTTP: for tests that drive it through a
// linked in-memory transport against the real services behind NATS.
import type { Principal } from "@cairn/contracts";
import { createLogger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import { createCairnBackend } from "../backend/cairn-backend.ts";
import { createServer } from "../mcp/create-server.ts";
import { createWritePositions } from "../operations/caller.ts";
import { createOperations } from "../operations/create-operations.ts";
import { createRecallRecorder } from "../operations/recall-recorder.ts";

export function createInMemoryMcpServer(nc: NatsConnection, principal: Principal) {
  const backend = createCairnBackend(nc);
  const ops = createOperations({
    backend,
    positions: createWritePositions(),
    recalls: createRecallRecorder(backend, { batchMs: 0 }),
    logger: createLogger("test", "silent"),
  });
  return createServer({ ops, caller: { keyId: "in-memory", principal } });
}
