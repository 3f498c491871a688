// A read of several commands as one transaction (MULTI … EXEC, one round trip): what it reads
// is one state of the read model, and no command's answer has to pass through a script.
import type { ChainableCommander } from "ioredis";

/** Each command's answer, in order; the first command's error is thrown. */
export async function readTransaction(read: ChainableCommander): Promise<unknown[]> {
  const replies = await read.exec();
  // EXEC answers null only for a transaction a WATCH aborted; these read without one.
  if (replies === null) throw new Error("a read transaction was aborted");
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
