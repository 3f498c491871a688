import { runService } from "@cairn/service-runtime";
import { createSearchService } from "./search-service.ts";

await runService(createSearchService());
