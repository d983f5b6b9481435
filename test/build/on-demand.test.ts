// scripts/build/on-demand.mjs: the modules the element imports on demand (languages, the native
// bridge) are bundled alone beside it, named by one hash, and left out of its bundle.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { esbuildBundle } from './support/esbuild-bundle.js';

const root = new URL('../..', import.meta.url).pathname;
const { onDemandSources } = await import(pathToFileURL(join(root, 'scripts/build/on-demand.mjs')).href) as {
  onDemandSources(): Promise<string[]>;
};

test('each on-demand module is imported by the bundle beside it, under one hash, and stands alone', async (t) => {
  const { dir, bundle, onDemand } = await esbuildBundle(t);
  const imported = [...bundle.matchAll(/import\("\.\/on-demand\/([\w-]+)\.js"\)/g)].map((m) => m[1]!).sort();
  assert.deepEqual(imported, [...onDemand.values()].map((file) => file.replace(/\.js$/, '')).sort());
  assert.deepEqual(imported.map((name) => name.replace(/-[0-9a-f]{10}$/, '')), ['id', 'ms', 'native-bridge', 'th', 'vi', 'zh-CN']);
  assert.equal(new Set(imported.map((name) => name.slice(-10))).size, 1, 'one hash for all');
  for (const name of imported) {
    const module = await readFile(join(dir, 'on-demand', `${name}.js`), 'utf8');
    assert.doesNotMatch(module, /\bimport\b/, `${name} stands alone`);
  }
});

test('no on-demand module names a property `_name`: it is bundled alone, so mangleProps would give it other names than the element\'s', async () => {
  const sources = await onDemandSources();
  assert.ok(sources.includes('native-bridge.ts') && sources.includes('locales/ms.ts'), sources.join(', '));
  for (const source of sources) {
    const file = ts.createSourceFile(source, await readFile(join(root, 'widget', source), 'utf8'), ts.ScriptTarget.Latest);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      const name = ts.isPropertyAccessExpression(node) || ts.isPropertyAssignment(node) || ts.isPropertySignature(node) || ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) ? node.name : undefined;
      if (name && ts.isIdentifier(name) && /^_[A-Za-z]/.test(name.text)) found.push(name.text);
      ts.forEachChild(node, visit);
    };
    visit(file);
    assert.deepEqual(found, [], `widget/${source}`);
  }
});
