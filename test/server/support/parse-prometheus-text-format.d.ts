// Types of parse-prometheus-text-format (it ships none): the prom2json-like shape it answers.
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    /** Counters, gauges and untyped samples: the value as written (`12`, `+Inf`, `Nan`). */
    value?: string;
    labels?: Record<string, string>;
    /** Histograms: cumulative count by upper bound (`le`), and the count and sum of observations. */
    buckets?: Record<string, string>;
    /** Summaries: the value by quantile. */
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }

  export interface PrometheusFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: PrometheusSample[];
  }

  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
