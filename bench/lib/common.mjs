// Shared by the benches: quick mode, greppable output, percentiles, a monotonic clock shared by processes.
import process from 'node:process';

/** BENCH_QUICK=1 shortens every duration and count (a smoke run, not figures to record). */
export const quick = process.env.BENCH_QUICK === '1';

/** `full` normally, `short` with BENCH_QUICK=1. */
export const pick = (full, short) => (quick ? short : full);

/** One figure, one line: `name value unit`. */
export function report(name, value, unit) {
  const text = typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(value < 10 ? 3 : 1) : String(value);
  console.log(`${name} ${text} ${unit}`);
}

/** A goal as two lines: its target and whether it was met (a miss is also said on stderr). */
export function goal(name, met, target, unit) {
  report(`${name}.goal`, target, unit);
  report(`${name}.goal_met`, met ? 1 : 0, 'bool');
  if (!met) console.error(`goal missed: ${name} (target ${target} ${unit})`);
}

/** The q-quantile (0..1) of numbers, nearest rank. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** CLOCK_MONOTONIC in ms: one clock for every process on the machine (unlike performance.now). */
export const monoMs = () => Number(process.hrtime.bigint()) / 1e6;

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` over items with at most `limit` in flight (the tests' own, test/support/promises.mjs). */
export { eachLimited } from '../../test/support/promises.mjs';
