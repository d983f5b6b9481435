// scripts/build/short-errors.mjs: dependencies' errors keep their throw but not their
// developer-facing message, a mechanical transform of their source.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = new URL('../..', import.meta.url).pathname;
const { shortErrors } = await import(pathToFileURL(join(root, 'scripts/build/short-errors.mjs')).href) as {
  shortErrors(source: string, name: string): string;
};

test('messages made of strings and names become the package name', () => {
  assert.equal(shortErrors("throw new Error('log(' + n + ')')", 'qr'), 'throw new Error("qr")');
  assert.equal(shortErrors('throw Error("a \\" b")', 'lit'), 'throw Error("lit")');
  assert.equal(shortErrors("throw new Error('\\n' +\n  'line two' +\n  x.y)", 'qr'), 'throw new Error("qr")');
  assert.equal(shortErrors('throw TypeError(`no ${x}`)', 'lit'), 'throw TypeError(`no ${x}`)', 'a template with a substitution is left alone');
});

test('errors whose message calls something, or has no string, are left as they are', () => {
  for (const source of ['throw new Error(describe(x))', 'throw new Error(message)', 'new Error()', "new Error('a' + f('b'))"]) {
    assert.equal(shortErrors(source, 'qr'), source);
  }
});

test('the code around them is unchanged', () => {
  const source = "if (!a) throw new Error('Invalid data'); const e = 'Error(' + 1; b(Error);";
  assert.equal(shortErrors(source, 'qr'), "if (!a) throw new Error(\"qr\"); const e = 'Error(' + 1; b(Error);");
});
