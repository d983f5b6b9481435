// scripts/build/release.mjs: beside the drop-in, its versioned copy, its SRI hash and
// bill-checkout.release.json, which names that copy with its integrity and sizes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = new URL('../..', import.meta.url).pathname;
const { buildRelease } = await import(pathToFileURL(join(root, 'scripts/build/release.mjs')).href) as {
  buildRelease(dist: string): Promise<Release>;
};
const { buildWidget, widgetFile } = await import(pathToFileURL(join(root, 'scripts/build/widget.mjs')).href) as {
  buildWidget(): Promise<unknown>;
  widgetFile: string;
};

interface Release { file: string; integrity: string; bytes: number; gzipBytes: number }

test('release.json names the versioned copy that is there, with its integrity and byte counts; sri.txt holds the same integrity', async (t) => {
  if (!existsSync(widgetFile)) await buildWidget();
  const dist = await mkdtemp(join(tmpdir(), 'release-'));
  t.after(() => rm(dist, { recursive: true, force: true }));
  await copyFile(widgetFile, join(dist, 'bill-checkout.js'));
  await writeFile(join(dist, 'bill-checkout.0123456789abcdef.js'), 'a previous build');

  const returned = await buildRelease(dist);
  const release = JSON.parse(await readFile(join(dist, 'bill-checkout.release.json'), 'utf8')) as Release;
  assert.deepEqual(Object.keys(release), ['file', 'integrity', 'bytes', 'gzipBytes']);
  assert.deepEqual(release, returned);

  const code = await readFile(join(dist, 'bill-checkout.js'));
  const versioned = await readFile(join(dist, release.file));
  assert.deepEqual(versioned, code, `${release.file} is the drop-in`);
  assert.equal(release.file, `bill-checkout.${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`);
  assert.equal(release.integrity, `sha384-${createHash('sha384').update(versioned).digest('base64')}`);
  assert.equal(release.bytes, versioned.length);
  assert.equal(release.gzipBytes, gzipSync(versioned, { level: 9 }).length);
  assert.ok(release.gzipBytes < release.bytes);
  assert.equal(await readFile(join(dist, 'bill-checkout.sri.txt'), 'utf8'), `${release.integrity}\n`);
  assert.deepEqual((await readdir(dist)).filter((name) => /^bill-checkout\.[0-9a-f]{16}\.js$/.test(name)), [release.file], 'no other versioned copy is left');
});
