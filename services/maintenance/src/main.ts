import { runService } from "@cairn/service-runtime";
import { createMaintenanceService } from "./maintenance-service.ts";

await runService(createMaintenanceService());
