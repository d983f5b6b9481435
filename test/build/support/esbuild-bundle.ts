// The element as esbuild bundles it for the drop-in (scripts/build/widget-config.mjs, before terser),
// beside its on-demand modules (scripts/build/on-demand.mjs), in a directory removed after the test.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

export const root = new URL('../../..', import.meta.url).pathname;

const { widgetBuild } = await import(pathToFileURL(join(root, 'scripts/build/widget-config.mjs')).href) as {
  widgetBuild: esbuild.BuildOptions & { plugins: esbuild.Plugin[] };
};
const { buildOnDemand, onDemandModules } = await import(pathToFileURL(join(root, 'scripts/build/on-demand.mjs')).href) as {
  buildOnDemand(outdir: string): Promise<Map<string, string>>;
  onDemandModules(urls: Map<string, string>): esbuild.Plugin;
};

export async function esbuildBundle(t: TestContext): Promise<{ dir: string; bundle: string; onDemand: Map<string, string> }> {
  const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const onDemand = await buildOnDemand(join(dir, 'on-demand'));
  const outfile = join(dir, 'bill-checkout.js');
  await esbuild.build({ ...widgetBuild, plugins: [...widgetBuild.plugins, onDemandModules(onDemand)], entryPoints: ['widget/index.ts'], outfile });
  return { dir, bundle: await readFile(outfile, 'utf8'), onDemand };
}
