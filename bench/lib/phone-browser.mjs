// Chromium as a mid-range phone on a slow mobile network (Lighthouse's mobile profile): one visit per
// fresh browser context (a cold cache, a new connection, empty sessionStorage), measured by the
// probe inside the page (phone-probe.mjs) and by the DevTools protocol from outside.
import { chromium } from 'playwright-core';
import { probe } from './phone-probe.mjs';

/** The profile of issue 17: Lighthouse's "slow 4G" and 4x slower CPU, a Moto G Power's screen. */
export const profile = {
  latencyMs: 150,
  downloadBitsPerSecond: 1.6e6,
  uploadBitsPerSecond: 750e3,
  cpuSlowdown: 4,
  viewport: { width: 412, height: 823 },
  deviceScaleFactor: 1.75,
};

export function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Opens `url` as the phone and resolves when the probe has seen its part painted (then its settle
 * time). Options: `probe` (phone-probe.mjs's options), `trace` (record the main thread: its tasks
 * and its JavaScript), `timeoutMs`. Resolves to the probe's figures plus `responses` (every
 * response but the page itself and the favicon: url, type, content-encoding, bytes on the wire
 * with headers, so far for a response still open) and, with `trace`, `tasks` (the page's main-thread tasks as { start, duration } in
 * ms of the page's clock) and `scriptMs` (its JavaScript, see mainThread). `traceCategories`: more
 * categories to record (a CPU profile: `disabled-by-default-v8.cpu_profiler`); `rawTrace`: the
 * trace itself as `trace` too (DevTools' performance panel opens it).
 */
export async function visit(browser, url, { probe: options, trace = false, traceCategories = [], rawTrace = false, timeoutMs = 60_000 }) {
  const context = await browser.newContext({
    viewport: profile.viewport,
    deviceScaleFactor: profile.deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
    userAgent: `Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${browser.version()} Mobile Safari/537.36`,
  });
  let tracing = false;
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const responses = new Map();
    cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
      const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      responses.set(requestId, { url: response.url, type, status: response.status, encoding: headers['content-encoding'] ?? 'identity', bytes: response.encodedDataLength });
    });
    // A response still open when the visit ends (the element's EventSource) counts what has come so
    // far; one that finished counts its total.
    cdp.on('Network.dataReceived', ({ requestId, encodedDataLength }) => {
      const response = responses.get(requestId);
      if (response) response.bytes += encodedDataLength;
    });
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      const response = responses.get(requestId);
      if (response) response.bytes = encodedDataLength;
    });
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.latencyMs,
      downloadThroughput: profile.downloadBitsPerSecond / 8,
      uploadThroughput: profile.uploadBitsPerSecond / 8,
      connectionType: 'cellular4g',
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpuSlowdown });
    await page.addInitScript(probe, options);
    if (trace) {
      // toplevel: each task of every thread; devtools.timeline and v8.execute: script evaluation,
      // function calls and microtasks, style and layout (as DevTools' performance panel records);
      // blink.user_timing: the probe's mark, which names the page's main thread and ties the
      // trace's clock to the page's.
      await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'v8.execute', 'blink.user_timing', ...traceCategories] });
      tracing = true;
    }
    await page.goto(url, { waitUntil: 'commit' });
    let timer;
    const figures = await Promise.race([
      page.evaluate(() => globalThis.__probe),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${url}: no ${options.selector} painted within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    const traceJson = trace ? JSON.parse(await browser.stopTracing()) : null;
    const mainThreadFigures = trace ? { ...mainThread(traceJson, figures.markAt), ...rawTrace ? { trace: traceJson } : {} } : {};
    tracing = false;
    return {
      ...figures,
      // The page itself, and the favicon the browser asks for on its own, are no checkout's bytes.
      responses: [...responses.values()].filter((r) => r.url !== url && !r.url.endsWith('/favicon.ico')),
      ...mainThreadFigures,
    };
  } finally {
    if (tracing) await browser.stopTracing();
    await context.close();
  }
}

// What the main thread runs as one task: a scheduler task (`ThreadControllerImpl::RunTask` in
// Chromium 156, `RunTask` before), or a microtask checkpoint run on its own after one (a fetch's
// answer reaching its promise): the Long Tasks API counts that as a task too.
const taskEvents = new Set(['ThreadControllerImpl::RunTask', 'RunTask', 'BlinkScheduler_PerformMicrotaskCheckpoint']);
// Where JavaScript runs: a script's compilation and evaluation, a call from the browser (an event, a
// timer, a frame callback) and the microtasks after it. Microtasks matter: Lit renders in them,
// and Performance.getMetrics's ScriptDuration leaves them out.
const scriptEvents = new Set(['v8.compile', 'v8.compileModule', 'EvaluateScript', 'v8.evaluateModule', 'FunctionCall', 'RunMicrotasks']);
// Style and layout that a script forces: rendering work, not the script's.
const renderingEvents = new Set(['UpdateLayoutTree', 'Layout']);

/**
 * Spans (sorted by start) merged where they overlap (not where one ends as the next starts). A
 * span's third member, when there is one (the thread's CPU time in it), is kept: the larger one
 * of a span inside another, the sum of two that only overlap.
 */
function union(spans) {
  const merged = [];
  for (const [start, end, cpu = 0] of spans) {
    const last = merged.at(-1);
    if (last && start < last[1]) {
      last[2] = end <= last[1] ? Math.max(last[2], cpu) : last[2] + cpu;
      last[1] = Math.max(last[1], end);
    } else merged.push([start, end, cpu]);
  }
  return merged;
}

/**
 * From a trace, the thread that recorded the probe's mark (the page's main thread), on the page's
 * clock (ms): `tasks` ({ start, duration, cpu }, outermost only; `cpu`: the thread's CPU time in
 * it, what it computed, which neither the CPU slowdown's pauses nor other work on the machine
 * lengthen as they do `duration`), and `scriptMs`, the time it ran
 * JavaScript (the union of scriptEvents, less the style and layout it forced).
 */
function mainThread({ traceEvents }, markAt) {
  const mark = traceEvents.find((e) => e.name === 'probe:painted' && e.cat.includes('blink.user_timing'));
  if (!mark) throw new Error('the trace has no probe:painted mark');
  const offset = mark.ts / 1000 - markAt;
  const events = traceEvents.filter((e) => e.ph === 'X' && e.pid === mark.pid && e.tid === mark.tid)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const tasks = union(events.filter((e) => taskEvents.has(e.name)).map((e) => [e.ts, e.ts + e.dur, e.tdur ?? 0]));
  const script = union(events.filter((e) => scriptEvents.has(e.name)).map((e) => [e.ts, e.ts + e.dur]));
  const inScript = (e) => script.some(([start, end]) => e.ts >= start && e.ts + e.dur <= end);
  const forced = union(events.filter((e) => renderingEvents.has(e.name) && inScript(e)).map((e) => [e.ts, e.ts + e.dur]));
  const total = (spans) => spans.reduce((sum, [start, end]) => sum + end - start, 0) / 1000;
  return {
    tasks: tasks.map(([start, end, cpu]) => ({ start: start / 1000 - offset, duration: (end - start) / 1000, cpu: cpu / 1000 })),
    scriptMs: total(script) - total(forced),
  };
}
