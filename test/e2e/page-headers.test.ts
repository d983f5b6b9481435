// What Chromium says about the BFF's own pages beyond their content (issue 43): a Permissions-Policy
// it understands whole (an unknown feature is an error in the console of every page), and no 404
// for the icon it asks every origin for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PERMISSIONS_POLICY } from '../../server/http/middleware/security-headers.js';
import { temporaryFolder } from '../server/support/cleanup.js';
import { serveCheckoutIn } from '../server/support/servers.js';
import { launch } from './support/browser.js';

test("the BFF's pages in Chromium: every Permissions-Policy feature known, nothing logged about it, no favicon 404", async (t) => {
  const running = await serveCheckoutIn(t, await temporaryFolder(t, 'bill-checkout-root-'));
  const browser = await launch();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const logged: string[] = [];
  const failed: string[] = [];
  page.on('console', (m) => logged.push(`${m.type()}: ${m.text()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });

  const answer = await page.goto(`${running.url}/`);
  assert.equal(answer?.headers()['permissions-policy'], PERMISSIONS_POLICY);
  // Chromium's own list of the features it knows (document.featurePolicy is Chromium's).
  const known = await page.evaluate(() => (document as Document & { featurePolicy: { features(): string[] } }).featurePolicy.features());
  const named = PERMISSIONS_POLICY.split(',').map((directive) => directive.trim().split('=')[0] ?? '');
  assert.deepEqual(named.filter((feature) => !known.includes(feature)), [], 'features Chromium does not know');
  for (const feature of named) {
    assert.equal(await page.evaluate((f) => (document as Document & { featurePolicy: { allowsFeature(f: string): boolean } }).featurePolicy.allowsFeature(f), feature), false, `${feature} denied`);
  }

  // The icon: asked for directly, as a browser with a tab strip does (headless may not ask).
  const icon = await page.evaluate(async () => {
    const res = await fetch('/favicon.ico');
    return { status: res.status, cacheControl: res.headers.get('cache-control') };
  });
  assert.deepEqual(icon, { status: 204, cacheControl: 'public, max-age=604800' });
  assert.deepEqual(logged.filter((line) => /Permissions-Policy|Unrecognized feature/i.test(line)), []);
  assert.deepEqual(failed, []);
});
