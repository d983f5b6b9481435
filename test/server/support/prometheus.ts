// Reads a Prometheus text exposition with parse-prometheus-text-format into samples to look up.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { PrometheusFamily } from 'parse-prometheus-text-format';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** The families as the parser answers them (help and type included). */
  families: PrometheusFamily[];
  type(name: string): PrometheusFamily['type'] | undefined;
  samples: Sample[];
  /** The sum of the samples named `name` whose labels include `labels`; 0 when there is none. */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether a sample named `name` with these labels is there. */
  has(name: string, labels?: Record<string, string>): boolean;
}

function number(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  return Number(text);
}

const matches = (sample: Sample, labels: Record<string, string>) =>
  Object.entries(labels).every(([k, v]) => sample.labels[k] === v);

export function parseExposition(text: string): Exposition {
  const families = parsePrometheusTextFormat(text);
  // The parser folds a histogram's series into one, dropping their labels (its flattenMetrics):
  // read histograms a second time as untyped, so that each _bucket, _sum and _count keeps its labels.
  const untyped = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
  const samples: Sample[] = [];
  for (const family of untyped) {
    for (const metric of family.metrics) {
      if (metric.value === undefined) continue;
      samples.push({ name: family.name, labels: metric.labels ?? {}, value: number(metric.value) });
    }
  }
  return {
    families,
    type: (name) => families.find((f) => f.name === name)?.type,
    samples,
    value: (name, labels = {}) => samples.filter((s) => s.name === name && matches(s, labels)).reduce((sum, s) => sum + s.value, 0),
    has: (name, labels = {}) => samples.some((s) => s.name === name && matches(s, labels)),
  };
}
