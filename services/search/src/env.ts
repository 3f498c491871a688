import { baseEnvSchema } from "@cairn/service-runtime";

export const searchEnvSchema = baseEnvSchema.extend({});
