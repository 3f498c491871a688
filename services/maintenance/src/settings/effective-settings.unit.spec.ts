import { defaultMaintenanceParams } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { jobEnvName } from "../env.ts";
import { deploymentSchedules, jobParams, tenantSchedule } from "./effective-settings.ts";

describe("effective maintenance settings", () => {
  it("layers the contract's defaults, the environment and the tenant's settings", () => {
    const deployment = deploymentSchedules({
      [jobEnvName("dedup", "EVERY_MINUTES")]: 15,
      [jobEnvName("gc", "APPLY")]: true,
      [jobEnvName("synonyms", "ENABLED")]: false,
    });
    expect(deployment.dedup).toEqual({ enabled: true, everyMinutes: 15, apply: true });
    expect(deployment.gc).toEqual({ enabled: true, everyMinutes: 1440, apply: true });
    expect(deployment.synonyms.enabled).toBe(false);
    expect(deployment.forgetting).toEqual({ enabled: true, everyMinutes: 120, apply: false });
    expect(tenantSchedule("dedup", deployment, { dedup: { enabled: false } })).toEqual({
      enabled: false,
      everyMinutes: 15,
      apply: true,
    });
  });

  it("validates parameters after the tenant's and the request's overrides", () => {
    expect(jobParams("gc", {}, undefined)).toEqual(defaultMaintenanceParams.gc);
    expect(jobParams("gc", { gc: { params: { olderThanDays: 7 } } }, { maxPerRun: 10 })).toEqual({
      olderThanDays: 7,
      maxPerRun: 10,
    });
    expect(() => jobParams("gc", {}, { olderThanDays: "soon" })).toThrow(/olderThanDays/);
    expect(() => jobParams("gc", {}, { unknown: 1 })).toThrow(/not valid/);
  });
});
