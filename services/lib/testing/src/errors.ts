// Errors raised by the test fixtures. Each carries a stable code and, where a server
// was involved, the log file and its last lines so a failing CI run can be diagnosed.

export const testingErrorCodes = {
  startFailed: "INFRA_START_FAILED",
  binaryMissing: "INFRA_BINARY_MISSING",
  waitTimeout: "WAIT_FOR_TIMEOUT",
} as const;

export type TestingErrorCode = (typeof testingErrorCodes)[keyof typeof testingErrorCodes];

export class InfraStartError extends Error {
  override readonly name = "InfraStartError";
  readonly code: typeof testingErrorCodes.startFailed | typeof testingErrorCodes.binaryMissing;
  readonly logFile: string | undefined;

  constructor(
    message: string,
    options: {
      code?: typeof testingErrorCodes.startFailed | typeof testingErrorCodes.binaryMissing;
      logFile?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = options.code ?? testingErrorCodes.startFailed;
    this.logFile = options.logFile;
  }
}

export class WaitForTimeoutError extends Error {
  override readonly name = "WaitForTimeoutError";
  readonly code = testingErrorCodes.waitTimeout;
  readonly timeoutMs: number;
  readonly attempts: number;

  constructor(message: string, options: { timeoutMs: number; attempts: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.timeoutMs = options.timeoutMs;
    this.attempts = options.attempts;
  }
}

export const isInfraStartError = (error: unknown): error is InfraStartError =>
  error instanceof InfraStartError;

export const isWaitForTimeoutError = (error: unknown): error is WaitForTimeoutError =>
  error instanceof WaitForTimeoutError;
