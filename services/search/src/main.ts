import { runService } from "@cairn/service-runtime";
import { searchEnvSchema } from "./env.ts";
import { startSearch } from "./search-service.ts";

await runService({ name: "search", envSchema: searchEnvSchema, start: startSearch() });
