// The web console for people (`@cairn/console`): its page at `/console` and its script and
// stylesheet under `/console/assets/`, all from this process (built at install, or in memory
// at start when that build is missing or stale), never from a CDN. The console signs in with
// an API key and calls `/v1` with it like any client, so these routes are public and hold no
// data: they serve the same bytes to everybody.
import { type ConsoleBuild, type ConsoleFile, loadConsole } from "@cairn/console";
import { CairnError } from "@cairn/contracts";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { defineRoute, type RouteSpec } from "../rest/route-spec.ts";

/**
 * Only the console's own files run on its page, and it talks only to this origin: no inline
 * script, no other host, no framing, no form posted anywhere (the key is never submitted).
 */
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function send(reply: FastifyReply, file: ConsoleFile, cache: string): FastifyReply {
  return reply
    .code(200)
    .header("content-type", file.contentType)
    .header("content-security-policy", contentSecurityPolicy)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("cache-control", cache)
    .send(file.body);
}

/** The console's routes; `load` gives its files (once, started right away). */
export function consoleRoutes(load: () => Promise<ConsoleBuild> = loadConsole): RouteSpec[] {
  const files = load().then((build) => new Map(build.files.map((f) => [f.path, f])));
  // Awaited by every request; a failed build is reported there, not as an unhandled rejection.
  files.catch(() => undefined);
  const fileAt = async (path: string): Promise<ConsoleFile | undefined> => {
    const built = await files.catch((cause: unknown) => {
      throw new CairnError("unavailable", "the console could not be built", {
        hint: "run `pnpm install` (it builds services/console), then restart the gateway",
        cause,
      });
    });
    return built.get(path);
  };
  return [
    defineRoute({
      method: "GET",
      path: "/console",
      operationId: "console",
      summary: "The web console for people (HTML; sign in with an API key)",
      tag: "console",
      public: true,
      success: { status: 200, description: "The console's page" },
      handler: async ({ reply }) => {
        const page = await fileAt("");
        if (!page) throw new CairnError("unavailable", "the console's build has no page");
        // The page names the current assets: always ask again.
        return send(reply, page, "no-cache");
      },
    }),
    defineRoute({
      method: "GET",
      path: "/console/assets/{file}",
      operationId: "consoleAsset",
      summary: "A script or stylesheet of the console (named by its content hash)",
      tag: "console",
      public: true,
      params: z.object({ file: z.string().regex(/^[\w.-]{1,200}$/) }),
      success: { status: 200, description: "The file" },
      errors: [404],
      handler: async ({ params, reply }) => {
        const asset = await fileAt(`assets/${params.file}`);
        if (!asset) {
          throw new CairnError("not_found", `the console has no asset ${params.file}`, {
            hint: "reload /console: it names the current assets",
          });
        }
        // A new build has new names, so a name's bytes never change.
        return send(reply, asset, "public, max-age=31536000, immutable");
      },
    }),
  ];
}
