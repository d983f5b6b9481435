// The merchant's in-process onFinal hook, called with a deadline: a hook that never returns would
// hold the worker's passes, so it gets `timeoutMs`, then its signal aborts and the attempt fails.
import type { BillNotice } from '../bill-view.js';

export type OnFinal = (bill: BillNotice, context: { signal: AbortSignal }) => void | Promise<void>;

export interface HookTimers {
  timeoutMs: number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

export async function callHook(hook: OnFinal, view: BillNotice, timers: HookTimers): Promise<void> {
  const { timeoutMs } = timers;
  const setTimer = timers.setTimer ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
  const clearTimer = timers.clearTimer ?? ((timer: unknown) => clearTimeout(timer as ReturnType<typeof setTimeout>));
  const controller = new AbortController();
  let timer: unknown;
  const late = new Promise<never>((_, reject) => {
    timer = setTimer(() => {
      const error = new Error(`onFinal did not finish within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    await Promise.race([Promise.resolve().then(() => hook(view, { signal: controller.signal })), late]);
  } finally {
    clearTimer(timer);
  }
}
