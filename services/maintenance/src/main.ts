import { runService } from "@cairn/service-runtime";
import { maintenanceService } from "./maintenance-service.ts";

await runService(maintenanceService);
