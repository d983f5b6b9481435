// The documentation a clone holds: every relative link of its Markdown files leads to a file or
// folder of the repository, and the service's interface in docs/ is the one document about it.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', '.git'].includes(entry.name) || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(path) : entry.name.endsWith('.md') ? [path] : [];
  });
}

test('every relative link in the repository\'s Markdown leads somewhere', () => {
  const broken: string[] = [];
  for (const file of markdownFiles(root)) {
    const text = readFileSync(file, 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      if (!existsSync(join(dirname(file), target!))) broken.push(`${relative(root, file)} → ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('docs/bill-payment-service-interface.md is the service\'s interface as given (when ../shared is beside the clone)', (t) => {
  const original = join(root, '../shared/spec/bill-payment-service-interface.md');
  if (!existsSync(original)) return t.skip('no ../shared beside this clone');
  assert.equal(readFileSync(join(root, 'docs/bill-payment-service-interface.md'), 'utf8'), readFileSync(original, 'utf8'));
});
