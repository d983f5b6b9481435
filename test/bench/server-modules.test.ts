// Which server the benches measure: the compiled one `npm start` runs, unless it is missing or older
// than a source it is made from (a bench after an edit without `npm run build` must not time old code).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { serverBuildState } = await import(pathToFileURL(join(root, 'bench/lib/server-modules.mjs')).href) as {
  serverBuildState: (rootUrl: URL, env: Record<string, string | undefined>) => { state: string; why: string };
};

function repository(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), 'server-modules-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, at: number) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), '');
    utimesSync(join(dir, path), at, at);
  };
  return { url: pathToFileURL(`${dir}/`), write };
}

test('the compiled server when it is newer than every source', (t) => {
  const repo = repository(t);
  repo.write('server/app.ts', 1_000);
  repo.write('widget/card/card.ts', 1_500);
  repo.write('dist/server/server/app.js', 2_000);
  assert.equal(serverBuildState(repo.url, {}).state, 'compiled');
});

test('the sources, saying why, when the build is missing or older than a source', (t) => {
  const repo = repository(t);
  repo.write('server/app.ts', 1_000);
  assert.deepEqual(serverBuildState(repo.url, {}), { state: 'missing', why: 'dist/server/server/app.js is missing (npm run build)' });
  repo.write('dist/server/server/app.js', 2_000);
  repo.write('sandbox/deep/in/it.ts', 3_000);
  const stale = serverBuildState(repo.url, {});
  assert.equal(stale.state, 'stale');
  assert.match(stale.why, /newer than dist\/server\/server\/app\.js \(npm run build\)/);
});

test('the sources when asked for, or when an app of its own is swapped in', (t) => {
  const repo = repository(t);
  repo.write('server/app.ts', 1_000);
  repo.write('dist/server/server/app.js', 2_000);
  assert.deepEqual(serverBuildState(repo.url, { BENCH_SOURCES: '1' }), { state: 'asked', why: 'BENCH_SOURCES is set' });
  assert.deepEqual(serverBuildState(repo.url, { BENCH_APP: 'x.ts' }), { state: 'asked', why: 'BENCH_APP swaps in an app of its own' });
});
