import { IdSchema, limits, WriteResultSchema } from "@cairn/contracts";
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import { sendWrite, writeHeaders } from "../schemas.ts";

export function feedbackRoutes(): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/feedback",
      operationId: "giveFeedback",
      summary: "Say whether a memory helped",
      tag: "feedback",
      body: z
        .object({
          memoryId: IdSchema,
          useful: z.boolean(),
          note: z.string().max(limits.reasonMaxChars).nullable().optional(),
        })
        .strict(),
      success: { status: 201, description: "Recorded", schema: WriteResultSchema, headers: writeHeaders },
      errors: [404],
      handler: async ({ write, body, reply }) =>
        sendWrite(
          reply,
          await write("feedback.give", {
            memoryId: body.memoryId,
            useful: body.useful,
            note: body.note ?? null,
          }),
          201,
        ),
    }),
  ];
}
