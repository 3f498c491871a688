export type { BaseEnv, ParsedSettings, ParseEnvOptions } from "./base-env.ts";
export { baseEnvSchema, parseEnv, parseSettings, settingNamesOf } from "./base-env.ts";
export type { ConfigFile, SettingSource } from "./config-file.ts";
export { ConfigFileError, readConfigFile } from "./config-file.ts";
export { isDependencyFailure, reportOutage } from "./dependency-failure.ts";
export { maskedValue, maskSetting, maskUrlPasswords } from "./mask-setting.ts";
export { serviceNodeOptions, withServiceNodeOptions } from "./node-options.ts";
export type {
  DependencyCheck,
  ServiceContext,
  ServiceDefinition,
  ServiceHandle,
  StartedService,
} from "./run-service.ts";
export { runService, startService } from "./run-service.ts";
export { serveReportingOutages } from "./serve-reporting-outages.ts";
