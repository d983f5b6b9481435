// The floor of bench/phone.mjs (bench/pages/lit-qr-floor.ts: Lit and the QR encoder in the least
// element), built as dist/bill-checkout.js is and served by the drop-in's own static routes
// (server/process/static-files.ts) under /floor/, so that its bytes, headers and
// compression are the drop-in's.
import { Buffer } from 'node:buffer';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import esbuild from 'esbuild';
import { Hono } from 'hono';
import { finishBundle } from '../../scripts/build/minify.mjs';
import { widgetBuild } from '../../scripts/build/widget-config.mjs';
import { importServer } from './server-modules.mjs';

/** Builds the floor and mounts it on `app` at /floor/bill-checkout.js; resolves to { bytes (raw), close() }. */
export async function mountFloor(app, config) {
  const result = await esbuild.build({
    ...widgetBuild,
    entryPoints: ['bench/pages/lit-qr-floor.ts'],
    outfile: 'floor.js',
    legalComments: 'none',
    write: false,
  });
  const code = await finishBundle(result.outputFiles[0].text);
  const root = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist/bill-checkout.js'), code);
  const { staticFiles } = await importServer('server/process/static-files.ts');
  const floor = new Hono();
  await staticFiles(floor, { root, config, demoOrders: null });
  app.route('/floor', floor);
  return { bytes: Buffer.byteLength(code), close: () => rmSync(root, { recursive: true, force: true }) };
}
