// The gateway's metrics are on one meter; each surface it serves (HTTP requests, MCP tool calls)
// keeps a counter of calls and a histogram of their latency in seconds.
import { createSecondsHistogram, getMeter } from "@cairn/telemetry";

const meter = getMeter("@cairn/gateway");

type Instrument = [name: string, description: string];

/** A counter of calls and a histogram of their latency in seconds. */
export function callMetrics(counter: Instrument, histogram: Instrument) {
  return {
    calls: meter.createCounter(counter[0], { description: counter[1] }),
    duration: createSecondsHistogram(meter, histogram[0], histogram[1]),
  };
}
