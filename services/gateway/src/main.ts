import { runService } from "@cairn/service-runtime";
import { createGatewayService } from "./gateway-service.ts";

await runService(createGatewayService());
