// What `bill-checkout/server` exports, values and types, is the README's list ("The server's public
// surface") and nothing else: a name added or dropped in server/index.ts without the README fails here.
// So is what its light entry, `bill-checkout/server/render`, exports (server/render.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = new URL('../..', import.meta.url).pathname;

function readmeList(): Set<string> {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('#### The server\'s public surface');
  assert.ok(start >= 0, 'README has the section "The server\'s public surface"');
  const rest = readme.slice(start);
  const section = rest.slice(0, rest.indexOf('\n\n', rest.indexOf('\n- ')));
  const items = section.slice(section.indexOf('\n- '));
  return new Set([...items.matchAll(/`([A-Za-z][A-Za-z0-9]*)`/g)].map((m) => m[1]!));
}

function exportsOf(file: string): { values: Set<string>; types: Set<string> } {
  const program = ts.createProgram({
    rootNames: [file],
    options: { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true },
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const module = checker.getSymbolAtLocation(source)!;
  const values = new Set<string>();
  const types = new Set<string>();
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    (target.flags & ts.SymbolFlags.Value ? values : types).add(symbol.getName());
  }
  return { values, types };
}

test('bill-checkout/server exports exactly the README\'s list', () => {
  const listed = readmeList();
  const { values, types } = exportsOf(join(root, 'server/index.ts'));
  const exported = new Set([...values, ...types]);
  const unlisted = [...exported].filter((name) => !listed.has(name)).sort();
  const missing = [...listed].filter((name) => !exported.has(name)).sort();
  assert.deepEqual(unlisted, [], 'exported but not in the README\'s list (document it, or stop exporting it)');
  assert.deepEqual(missing, [], 'in the README\'s list but not exported');
  // What a merchant calls is a value, not only a type.
  for (const name of ['serveBillCheckout', 'createBillCheckout', 'orderTicket', 'renderCheckout', 'createPostgresStore', 'BillApiError']) {
    assert.ok(values.has(name), name);
  }
  // Internals stay inside: the budget, the lossless JSON reader, the service's answer schemas, the clock estimate.
  for (const name of ['createBudget', 'parseJsonLossless', 'createdBillSchema', 'createServiceClock', 'MIN_SECRET_LENGTH']) {
    assert.ok(!exported.has(name), name);
  }
});

test('bill-checkout/server/render exports exactly the README\'s names, each also bill-checkout/server\'s', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('`bill-checkout/server/render` exports ');
  assert.ok(start >= 0, 'README says what bill-checkout/server/render exports');
  const sentence = readme.slice(start, readme.indexOf('(', start));
  const listed = [...sentence.matchAll(/`([A-Za-z][A-Za-z0-9]*)`/g)].map((m) => m[1]!).sort();
  const { values, types } = exportsOf(join(root, 'server/render.ts'));
  assert.deepEqual([...values, ...types].sort(), listed);
  const server = exportsOf(join(root, 'server/index.ts'));
  for (const name of values) assert.ok(server.values.has(name), name);
  for (const name of types) assert.ok(server.types.has(name), name);
});
