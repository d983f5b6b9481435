// What bench/phone.mjs runs inside each page, before the page's own scripts (page.addInitScript
// serializes `probe` and calls it with its options). It reads the page's own clock, so every time
// is in ms from the start of the navigation (performance.now() of the new document).
/* global document, customElements, Element, MessageChannel, MutationObserver, PerformanceObserver, requestAnimationFrame */

/**
 * Options: `selector` (the part whose painting ends the measure, looked for in the document and in
 * every shadow root), `tag` (the checkout's custom element: defined when it is registered) or
 * `mark` (a checkout that is no custom element: defined when the page marks
 * `performance.mark(mark)`), neither for a page without a checkout, and `settleMs` (a fixed time
 * after the paint during which long tasks still count: work a checkout leaves for later).
 *
 * "Painted": the part is in the DOM (an image also loaded), then a requestAnimationFrame (the
 * frame that draws it starts), then the task after that frame (it has been produced), as in
 * bench/widget-paint.mjs. Sets `globalThis.__probe`, a promise of the figures.
 */
export function probe({ selector, tag, mark, settleMs, takeOver }) {
  const longTasks = [];
  // Layout shifts (issue 34: CLS from the first paint through the element's take-over), summed.
  let cls = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) cls += entry.value;
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    for (const { startTime, duration } of list.getEntries()) longTasks.push({ startTime, duration });
  }).observe({ type: 'longtask', buffered: true });

  const defined = tag ? customElements.whenDefined(tag).then(() => performance.now())
    : !mark ? Promise.resolve(null)
      : new Promise((resolve) => {
        new PerformanceObserver((list, observer) => {
          const [entry] = list.getEntriesByName(mark);
          if (!entry) return;
          observer.disconnect();
          resolve(entry.startTime);
        }).observe({ type: 'mark', buffered: true });
      });

  // One MutationObserver on the document and on each shadow root as it is attached (open or closed:
  // attachShadow is wrapped), so that the part is seen the moment any component inserts it, with no
  // polling that would itself load the main thread.
  const roots = [document];
  const inDom = new Promise((resolve) => {
    const check = () => {
      // Declarative shadow roots (server-rendered markup) are attached by the parser, not attachShadow.
      for (const host of document.querySelectorAll(tag ?? 'bill-checkout')) {
        if (host.shadowRoot && !roots.includes(host.shadowRoot)) {
          roots.push(host.shadowRoot);
          watch(host.shadowRoot);
        }
      }
      for (const root of roots) {
        const part = root.querySelector(selector);
        if (!part) continue;
        observer.disconnect();
        resolve({ part, at: performance.now() });
        return;
      }
    };
    const observer = new MutationObserver(check);
    const watch = (root) => observer.observe(root, { childList: true, subtree: true, attributes: true });
    const attachShadow = Element.prototype.attachShadow;
    Element.prototype.attachShadow = function attachAndWatch(init) {
      const root = attachShadow.call(this, init);
      roots.push(root);
      watch(root);
      return root;
    };
    watch(document);
  });

  const loaded = (part) => part.localName !== 'img' || (part.complete && part.naturalWidth > 0)
    ? Promise.resolve()
    : new Promise((resolve) => part.addEventListener('load', resolve, { once: true }));
  const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve(performance.now());
    channel.port2.postMessage(0);
  }));

  // Scripts: what a script element or a module preload fetched.
  const scripts = () => performance.getEntriesByType('resource')
    .filter((r) => r.initiatorType === 'script' || (r.initiatorType === 'link' && /\.m?js(?:$|\?)/.test(r.name)));

  globalThis.__probe = (async () => {
    const { part, at: inDomAt } = await inDom;
    await loaded(part);
    const paintedAt = await afterPaint();
    // A mark the trace also records: it ties the trace's clock to this page's.
    const painted = performance.mark('probe:painted');
    const definedAt = await defined;
    // With takeOver: until the element has put its own card in place of the server's (whose expiry
    // line only the server draws), and a frame after it.
    let takenOverAt = null;
    if (takeOver) {
      const root = document.querySelector(tag).shadowRoot;
      await new Promise((resolve) => {
        const done = () => !root.querySelector('.print') && (observer.disconnect(), resolve());
        const observer = new MutationObserver(done);
        observer.observe(root, { childList: true, subtree: true });
        done();
      });
      takenOverAt = await afterPaint();
    }
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const [navigation] = performance.getEntriesByType('navigation');
    return {
      definedAt,
      inDomAt,
      paintedAt,
      markAt: painted.startTime,
      htmlEnd: navigation.responseEnd,
      takenOverAt,
      cls,
      // Script bytes received before the part was painted (0: painted from the HTML alone, before any
      // script came in). Under the DevTools network emulation a response's body reaches the page at
      // once, at its responseEnd (its Network.dataReceived events carry no bytes until then), so a
      // script counts whole when it ended before the paint, and not at all otherwise. A script whose
      // request had started (the preload scanner asks for it as soon as its tag is in the bytes) is
      // counted apart: on its way, not yet in.
      scriptBytesBefore: scripts().filter((r) => r.responseEnd <= paintedAt).reduce((sum, r) => sum + r.transferSize, 0),
      scriptsRequestedBefore: scripts().filter((r) => r.startTime < paintedAt).length,
      resources: performance.getEntriesByType('resource').map((r) => ({
        name: r.name, initiatorType: r.initiatorType, startTime: r.startTime, responseEnd: r.responseEnd,
      })),
      longTasks,
    };
  })();
}
