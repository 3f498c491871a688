import { runService } from "@cairn/service-runtime";
import { createIngestService } from "./ingest-service.ts";

await runService(createIngestService());
