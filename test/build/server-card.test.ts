// scripts/build/server-card.mjs: the element's QR encoder and card CSS as dist/server gets them:
// standalone modules (no qrcode, no lit at run time) that draw and style what the element does.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cardCss } from '../../widget/card/styles.js';
import { qrPath } from '../../widget/qr-code.js';

const root = new URL('../..', import.meta.url).pathname;
const { buildServerCard } = await import(pathToFileURL(join(root, 'scripts/build/server-card.mjs')).href) as {
  buildServerCard(outdir: string): Promise<void>;
};
const { minifiedCss } = await import(pathToFileURL(join(root, 'scripts/build/css-templates.mjs')).href) as {
  minifiedCss(text: string): Promise<string>;
};

test('the encoder and the CSS import nothing, the encoder draws what widget/qr-code.ts draws, the CSS is minified', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'server-card-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await buildServerCard(dir);
  for (const file of ['widget/qr-code.js', 'widget/card/styles.js']) {
    assert.doesNotMatch(await readFile(join(dir, file), 'utf8'), /\bimport\b|\brequire\(/, `${file} stands alone`);
  }
  const encoder = await import(pathToFileURL(join(dir, 'widget/qr-code.js')).href) as { qrPath: typeof qrPath };
  for (const url of ['https://pay.example/b/1', `https://pay.example/bill/${'x'.repeat(300)}?t=é✓`]) {
    assert.deepEqual(encoder.qrPath(url), qrPath(url), url);
  }
  const styles = await import(pathToFileURL(join(dir, 'widget/card/styles.js')).href) as { cardCss: string };
  assert.equal(styles.cardCss, await minifiedCss(cardCss));
});
