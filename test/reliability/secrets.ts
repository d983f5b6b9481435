// Secrets in the built assets: the demo (Vite) and the element (esbuild) are built with canary
// secrets in the environment, and those outputs plus what a browser can load of dist/ (all but
// dist/server, the compiled server, which holds the sandbox's public demo pair and is never
// served) and demo/dist are scanned for every form of every secret. Responses and log lines are
// scanned by each suite (support/record.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { SANDBOX_DEMO_KEY, SANDBOX_DEMO_SECRET } from '../../sandbox/credentials.js';
import { TEST_KEY, TEST_SECRET } from '../server/support/harness.js';
import { WEBHOOK_SECRET } from './support/merchant.js';
import { findLeaks } from './support/record.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export const CANARIES = {
  BILL_API_KEY: 'canary-key-6f1e9d2b',
  BILL_API_SECRET: 'canary-signing-secret-3a7c55e0',
  MERCHANT_WEBHOOK_SECRET: 'whsec_' + Buffer.from('canary-webhook-secret-0123456789ab').toString('base64'),
  ADMIN_TOKEN: 'canary-admin-token-9b0d44-0123456789abcdef',
};

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

export interface AssetFigures {
  filesScanned: number;
  builtHere: string[];
  leaks: string[];
}

export async function scanBuiltAssets(): Promise<AssetFigures> {
  const out = mkdtempSync(join(tmpdir(), 'bff-assets-'));
  // Every secret-looking variable, plain and as Vite would expose it.
  const env = { ...process.env, ...CANARIES, ...Object.fromEntries(Object.entries(CANARIES).map(([k, v]) => [`VITE_${k}`, v])) };
  try {
    const demo = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', join(out, 'demo'), '--emptyOutDir', '--logLevel', 'error'],
      { cwd: ROOT, env, encoding: 'utf8' });
    if (demo.status !== 0) throw new Error(`vite build failed: ${demo.stderr}`);
    await esbuild.build({
      entryPoints: [join(ROOT, 'widget/index.ts')], bundle: true, format: 'esm', minify: true, write: true,
      outfile: join(out, 'widget/bill-checkout.js'), tsconfig: join(ROOT, 'tsconfig.json'), logLevel: 'silent',
    });
    const browser = files(join(ROOT, 'dist')).filter((p) => !relative(join(ROOT, 'dist'), p).startsWith(`server${sep}`));
    const paths = [...files(out), ...browser, ...files(join(ROOT, 'demo/dist'))];
    const texts = paths.map((p) => readFileSync(p).toString('latin1'));
    const secrets = [...Object.values(CANARIES), SANDBOX_DEMO_KEY, SANDBOX_DEMO_SECRET, TEST_KEY, TEST_SECRET, WEBHOOK_SECRET];
    const leaks = findLeaks(texts, secrets, (i) => relative(ROOT, paths[i]!)).map((l) => `${l.secret} as ${l.form} in ${l.where}`);
    return { filesScanned: paths.length, builtHere: ['demo (vite)', 'widget (esbuild)'], leaks };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
