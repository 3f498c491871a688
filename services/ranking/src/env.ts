import { baseEnvSchema } from "@cairn/service-runtime";

export const rankingEnvSchema = baseEnvSchema.extend({});
