import { runService } from "@cairn/service-runtime";
import { createRankingService } from "./ranking-service.ts";

await runService(createRankingService());
