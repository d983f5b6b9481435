import { expect } from '@open-wc/testing';
import axe from 'axe-core';
import type { BillCheckout } from '../../widget/bill-checkout.js';
import type { Harness } from './support.js';

/** Fails with axe's violations of `el` in `state` (its WCAG checks, shadow DOM included). */
export async function noViolations(h: Harness, el: BillCheckout, state: string): Promise<void> {
  let done = false;
  const run = axe.run(el, { resultTypes: ['violations'] }).finally(() => {
    done = true;
  });
  // axe paces itself with timers; the fake clock must move for it to finish.
  while (!done) await h.clock.tickAsync(1);
  const { violations } = await run;
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(found, `axe in state "${state}"`).to.deep.equal([]);
}
