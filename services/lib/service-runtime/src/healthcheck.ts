// Container health check: exits 0 when the named service answers its NATS health request
// with every dependency up. Usage: node healthcheck.ts <service>
import { busCredentialsFromEnv, call, connectBus } from "@cairn/bus";
import { healthRpc, serviceNames } from "@cairn/contracts";
import { baseEnvSchema, parseEnv } from "./base-env.ts";

const service = process.argv[2];
const name = serviceNames.find((s) => s === service);
if (!name) {
  console.error(`usage: healthcheck.ts <${serviceNames.join("|")}>`);
  process.exit(2);
}
const env = parseEnv(baseEnvSchema);
try {
  const nc = await connectBus({
    url: env.CAIRN_NATS_URL,
    name: `healthcheck-${name}`,
    connectTimeoutMs: 3000,
    credentials: busCredentialsFromEnv(env),
  });
  const reply = await call(nc, healthRpc(name), {}, { timeoutMs: 3000 });
  await nc.close();
  console.log(JSON.stringify(reply));
  process.exit(reply.ok ? 0 : 1);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
