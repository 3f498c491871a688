import { baseEnvSchema } from "@cairn/service-runtime";

export const maintenanceEnvSchema = baseEnvSchema.extend({});
