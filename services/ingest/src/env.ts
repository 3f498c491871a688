import { baseEnvSchema } from "@cairn/service-runtime";

export const ingestEnvSchema = baseEnvSchema.extend({});
