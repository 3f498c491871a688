import { runService } from "@cairn/service-runtime";
import { ingestService } from "./ingest-service.ts";

await runService(ingestService);
