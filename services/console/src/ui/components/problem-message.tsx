import type { Problem } from "../api-client.ts";

/** A refusal or failure as the server worded it: title, detail, the hint, the stable code. */
export function ProblemMessage({
  problem,
  onRetry,
  retryLabel = "Try again",
}: {
  problem: Problem;
  onRetry?: () => void;
  retryLabel?: string;
}) {
  return (
    <div class="problem" role="alert" data-code={problem.code}>
      <p class="problem-title">
        <strong>{problem.title}</strong>
        <span class="muted">
          {" "}
          {problem.code}
          {problem.status ? ` · ${problem.status}` : ""}
        </span>
      </p>
      <p class="problem-detail">{problem.detail}</p>
      {problem.hint ? <p class="problem-hint">{problem.hint}</p> : null}
      {onRetry ? (
        <button type="button" class="secondary" onClick={onRetry}>
          {retryLabel}
        </button>
      ) : null}
    </div>
  );
}
