import type { Registry } from "./prom.ts";

// http_requests_total{method,status,route} and http_request_duration_seconds (PRODUCT.md §6), kept
// as plain numbers per series and read by the registry only when /metrics is scraped. prom-client's
// Counter and Histogram validate and hash the label object on every inc()/observe(), and two of
// them per request are a visible share of the cheapest routes (docs/decisions.md "Performance").
// The text is unchanged: the registry formats what get()/getForPromString() return here exactly
// as it formats its own Counter and Histogram (same value shapes, label order and series order).

/** Upper bounds in seconds; +Inf is implicit. */
const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

// A type, not an interface: it must be assignable to the registry's Record of labels.
type Labels = { method: string; status: string; route: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); a value over the last bound is only in `count`. */
  perBucket: number[];
}

interface ValuePair {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName?: string;
}

const DURATION = "http_request_duration_seconds";

export class HttpRequestStats {
  // Keyed by one string per series: a Map lookup instead of prom-client's sorted label hash.
  private readonly series = new Map<string, Series>();

  constructor(registry: Registry) {
    const values = () => this.series.values();
    // registerMetric takes any object with a name and get(); these two carry what prom-client's
    // Counter.get() and Histogram.getForPromString()/get() carry.
    registry.registerMetric({
      name: "http_requests_total",
      get: async () => ({
        name: "http_requests_total",
        help: "HTTP requests answered, by method, status and matched route pattern.",
        type: "counter",
        values: Array.from(values(), (s): ValuePair => ({ value: s.count, labels: s.labels })),
        aggregator: "sum",
      }),
      reset: () => this.series.clear(),
    } as never);
    const histogram = (splay: boolean) => ({
      name: DURATION,
      help: "Time from receiving a request to its response being ready, in seconds.",
      type: "histogram",
      values: Array.from(values(), (s) => histogramValues(s, splay)).flat(),
      aggregator: "sum",
    });
    registry.registerMetric({
      name: DURATION,
      get: async () => histogram(true),
      getForPromString: async () => histogram(false),
      reset: () => this.series.clear(),
    } as never);
  }

  /** One answered request. `status` is the response's HTTP status. */
  record(method: string, status: number, route: string, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.series.get(key);
    if (!s) {
      s = {
        labels: { method, status: String(status), route },
        count: 0,
        sum: 0,
        perBucket: HTTP_DURATION_BUCKETS.map(() => 0),
      };
      this.series.set(key, s);
    }
    s.count++;
    s.sum += seconds;
    // prom-client's findBound: the first bound the value does not exceed.
    for (let i = 0; i < HTTP_DURATION_BUCKETS.length; i++) {
      if (seconds <= HTTP_DURATION_BUCKETS[i]!) {
        s.perBucket[i]!++;
        break;
      }
    }
  }
}

/**
 * One series as prom-client's Histogram exports it: cumulative buckets, +Inf, sum, count; `le` in
 * `labels` and the series' labels in `sharedLabels` (getForPromString), or merged (get).
 */
function histogramValues(s: Series, splay: boolean): ValuePair[] {
  const pair = (labels: Record<string, string | number>, value: number, suffix: string): ValuePair =>
    splay
      ? { labels: { ...labels, ...s.labels }, value, metricName: `${DURATION}${suffix}` }
      : { labels, sharedLabels: { ...s.labels }, value, metricName: `${DURATION}${suffix}` };
  let acc = 0;
  const out = HTTP_DURATION_BUCKETS.map((le, i) => {
    acc += s.perBucket[i]!;
    return pair({ le }, acc, "_bucket");
  });
  out.push(pair({ le: "+Inf" }, s.count, "_bucket"), pair({}, s.sum, "_sum"), pair({}, s.count, "_count"));
  return out;
}
