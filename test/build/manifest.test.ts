// custom-elements.json, as the build makes it: valid against the schema of its format, every module
// it refers to listed in it, and the element's public API described.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';

const root = new URL('../..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const { buildManifest } = await import(pathToFileURL(join(root, 'scripts/build/manifest.mjs')).href) as {
  buildManifest(outdir: string): Promise<void>;
};

interface Manifest {
  modules: {
    path: string;
    declarations?: { name: string; customElement?: boolean; tagName?: string; attributes?: { name: string }[]; events?: { name: string }[]; members?: { name: string; privacy?: string }[] }[];
  }[];
}

// Every `module` a reference names, anywhere in the manifest.
function referencedModules(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) referencedModules(item, found);
  else if (node === Object(node)) {
    for (const [key, value] of Object.entries(node as object)) {
      if (key === 'module' && typeof value === 'string') found.add(value);
      else referencedModules(value, found);
    }
  }
  return found;
}

test('custom-elements.json is valid, refers only to modules it lists, and describes the element', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'manifest-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const packageJson = await readFile(join(root, 'package.json'), 'utf8');
  await buildManifest(dir);
  // The analyzer rewrites package.json's customElements unless told not to: it must keep naming the shipped file.
  assert.equal(await readFile(join(root, 'package.json'), 'utf8'), packageJson, 'package.json left as it was');
  assert.equal((JSON.parse(packageJson) as { customElements: string }).customElements, 'custom-elements.json');
  const manifest = JSON.parse(await readFile(join(dir, 'custom-elements.json'), 'utf8')) as Manifest;

  const validate = new Ajv({ allowUnionTypes: true }).compile(require('custom-elements-manifest/schema.json') as object);
  assert.ok(validate(manifest), JSON.stringify(validate.errors, null, 2));

  const listed = new Set(manifest.modules.map((mod) => mod.path));
  const referenced = referencedModules(manifest);
  assert.ok(referenced.size >= 5, [...referenced].join(', '));
  for (const path of referenced) assert.ok(listed.has(path), `${path} is referred to but not listed (${[...listed].join(', ')})`);
  for (const path of ['widget/events.ts', 'contract/bill-view.ts', 'widget/controllers/session-controller.ts']) {
    assert.ok(listed.has(path), `${path} is listed`);
  }

  const element = manifest.modules.flatMap((mod) => mod.declarations ?? []).find((d) => d.customElement && d.tagName === 'bill-checkout');
  assert.ok(element, 'the bill-checkout element is declared');
  const attributes = element.attributes?.map((a) => a.name) ?? [];
  for (const name of ['order-id', 'order-ticket', 'mode', 'cancellable', 'native-bridge', 'parent-origin', 'gold-unit']) assert.ok(attributes.includes(name), `attribute ${name} in ${attributes.join(', ')}`);
  assert.ok(!attributes.some((name) => name.startsWith('_')), 'no private state among the attributes');
  const publicMembers = (element.members ?? []).filter((m) => (m.privacy ?? 'public') === 'public').map((m) => m.name);
  assert.ok(publicMembers.includes('orderId'), `orderId among the public members: ${publicMembers.join(', ')}`);
  assert.deepEqual(publicMembers.filter((name) => name.startsWith('_')), [], 'no `_` member (the bundle shortens them) is public');
  assert.deepEqual(element.events?.map((e) => e.name).sort(), ['bill-created', 'bill-error', 'bill-final', 'bill-status', 'bill-ticket-expired']);
});
