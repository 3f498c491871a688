// Progress of a long command on stderr: a bar redrawn in place on a terminal (done/total, rate,
// time left), and a plain line every few seconds when stderr is a file or a pipe (CI logs, a
// `2>import.log`), so a log shows progress without control characters.
import cliProgress from "cli-progress";

export type ProgressBar = {
  update(done: number, total: number): void;
  stop(): void;
};

export function createProgressBar(label: string, stream: NodeJS.WriteStream = process.stderr): ProgressBar {
  const tty = stream.isTTY === true;
  const started = Date.now();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: tty
        ? `${label} [{bar}] {value}/{total} {percentage}% | {rate}/s | eta {eta_formatted}`
        : `${label} {value}/{total} ({percentage}%), {rate}/s, eta {eta_formatted}`,
      // Plain lines where stderr is not a terminal, every 2 s.
      noTTYOutput: true,
      notTTYSchedule: 2000,
      etaBuffer: 50,
      hideCursor: tty,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  const rate = (done: number) => {
    const seconds = (Date.now() - started) / 1000;
    return seconds > 0 ? (done / seconds).toFixed(1) : "0.0";
  };
  return {
    update(done, total) {
      if (!running) {
        running = true;
        bar.start(total, done, { rate: rate(done) });
        return;
      }
      bar.setTotal(total);
      bar.update(done, { rate: rate(done) });
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}
