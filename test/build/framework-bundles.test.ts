// What a framework's server bundler makes of the package, installed from its tarball into a project
// with no configuration of its own (no serverExternalPackages, no aliases): a Next.js App Router app
// whose Server Components import bill-checkout/server and bill-checkout/server/render, built with
// Turbopack and with webpack, then served: the checkout in the first HTML, a route handler opening
// the SQLite store (its driver and checkpoint worker found at run time) and saying what to install
// for PostgreSQL, zero console errors and warnings in Chromium. And a Vite SSR build of an entry
// importing the same, with the package external (Vite's default) and bundled into the output.
// Next.js, React and Vite come from the registry, installed once per run into a temporary folder.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { freePort, npm, pack, ROOT, run, type Packed } from './support/packed.js';

const FIXTURES = join(ROOT, 'test/build/fixtures/frameworks');
// What the builds and the server see of the environment: no NODE_ENV, no telemetry.
const ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NEXT_TELEMETRY_DISABLED: '1' };
const TICKET = /^\d{13,}\.[A-Za-z0-9_-]{43}$/;

interface Project {
  dir: string;
  packed: Packed;
}

let project: Promise<Project> | undefined;
let projectDir: string | undefined;
after(() => (projectDir ? rm(projectDir, { recursive: true, force: true }) : undefined));

/** The fixtures, the tarball and the frameworks installed into a temporary project: once for this file. */
function installed(t: TestContext): Promise<Project> {
  project ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bill-checkout-frameworks-'));
    projectDir = dir;
    const packed = await pack(dir);
    await cp(FIXTURES, dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'framework-fixtures', private: true }));
    const started = performance.now();
    await run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', 'next@16', 'react@19', 'react-dom@19', 'vite@8', packed.tarball], {
      cwd: dir, maxBuffer: 64 * 1024 * 1024,
    });
    t.diagnostic(`npm install of next, react, react-dom, vite and the tarball: ${seconds(started)} s`);
    // Where Node has no SQLite of its own (20), the merchant installs better-sqlite3: the repository's, built here.
    if (Number(process.versions.node.split('.')[0]) < 22) {
      await symlink(join(ROOT, 'node_modules/better-sqlite3'), join(dir, 'node_modules/better-sqlite3'), 'dir');
    }
    return { dir, packed };
  })();
  return project;
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

/** Runs `node <args>` in `cwd`; its whole output, or a failure that shows it. */
async function node(cwd: string, args: string[]): Promise<string> {
  return run(process.execPath, args, { cwd, env: ENV, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (error: { stdout?: string; stderr?: string; message: string }) => assert.fail(`node ${args.join(' ')} failed:\n${error.stdout ?? ''}${error.stderr ?? error.message}`),
  );
}

/** The JavaScript files under `dir`, recursively. */
async function scripts(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && /\.m?js$/.test(e.name)).map((e) => join(e.parentPath, e.name));
}

test('the packed server: drivers out of a bundler\'s sight, no source-file URL, a render entry that imports no store', { timeout: 300_000 }, async (t) => {
  const { packed } = await installed(t);
  const shipped = packed.paths.filter((p) => /^dist\/server\/.+\.js$/.test(p));
  for (const file of ['render.js', 'render.d.ts']) assert.ok(packed.paths.includes(`dist/server/server/${file}`), `the tarball has ${file}`);
  for (const path of shipped) {
    const text = await readFile(join(ROOT, path), 'utf8');
    // A literal specifier is what bundlers resolve: the optional drivers must never be one.
    assert.doesNotMatch(text, /(from\s*|import\(\s*|require\(\s*)['"](pg|better-sqlite3)['"]/, `${path} names a driver a bundler would resolve`);
    assert.doesNotMatch(text, /new URL\(\s*['"`][^'"`]*['"`]\s*,\s*import\.meta\.url/, `${path} has a new URL(literal, import.meta.url) a bundler would copy`);
    assert.doesNotMatch(text, /['"`]\.{1,2}\/[^'"`\s]*\.ts['"`]/, `${path} names a TypeScript source the package does not ship`);
  }

  // The render entry's whole import graph: the card, its QR encoder, texts and tickets; nothing else.
  const graph = await esbuild.build({
    entryPoints: [join(ROOT, 'dist/server/server/render.js')], bundle: true, write: false, metafile: true, format: 'esm',
    platform: 'neutral', outfile: join(tmpdir(), 'render-entry.js'), logLevel: 'silent',
  });
  const inputs = Object.keys(graph.metafile.inputs);
  assert.deepEqual(inputs.filter((p) => /\/server\/(store|upstream|platform|process|metrics)\/|\/server\/(app|config|index)\.js$/.test(p)), [], 'no store, upstream client, runtime adapter or configuration');
  const external = Object.values(graph.metafile.inputs).flatMap((input) => input.imports.filter((i) => i.external).map((i) => i.path));
  assert.deepEqual(external, [], 'no import left outside the graph (no node:* module, no package)');
  t.diagnostic(`bill-checkout/server/render: ${inputs.length} modules, ${graph.outputFiles[0]!.contents.length} bytes unminified`);

  const light = (await import(pathToFileURL(join(ROOT, 'dist/server/server/render.js')).href)) as Record<string, unknown>;
  const server = (await import(pathToFileURL(join(ROOT, 'dist/server/server/index.js')).href)) as Record<string, unknown>;
  assert.deepEqual(Object.keys(light).sort(), ['checkoutStyleHash', 'orderTicket', 'renderCheckout']);
  for (const name of Object.keys(light)) assert.equal(light[name], server[name], `${name} is bill-checkout/server's own`);
});

/** `next start` of the last build on a free port of 127.0.0.1, until `stop`; its output so far in `log()`. */
async function nextStart(dir: string, next: string): Promise<{ base: string; log: () => string; stop: () => Promise<void> }> {
  const port = await freePort();
  const server = spawn(process.execPath, [next, 'start', '-p', String(port), '-H', '127.0.0.1'], { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = once(server, 'exit');
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (/Ready in/.test(log)) resolve();
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    void exited.then(([code]) => reject(new Error(`next start exited (${String(code)}):\n${log}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    log: () => log,
    async stop() {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
    },
  };
}

test('Next.js: Server Components importing bill-checkout/server and its render entry build with webpack and Turbopack, and serve', { timeout: 600_000 }, async (t) => {
  const { dir } = await installed(t);
  const next = join(dir, 'node_modules/next/dist/bin/next');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.after(() => browser.close());

  for (const [bundler, flags] of [['webpack', ['--webpack']], ['Turbopack', []]] as const) {
    const started = performance.now();
    const output = await node(dir, [next, 'build', ...flags]);
    t.diagnostic(`next build (${bundler}): ${seconds(started)} s`);
    assert.doesNotMatch(output, /Module not found|Can't resolve|Critical dependency/, output);
    // A warning names its module, then says what it is (an import trace lists modules only).
    const warnings = [...output.matchAll(/^\.\/(\S+)\n(?!\.\/)(.+)$/gm)].map((m) => `${m[1]}: ${m[2]}`);
    if (bundler === 'webpack') {
      // webpack's browser build of the element (the 'use client' page) warns of the top-level await of
      // widget/define.ts, for a browser target it does not know supports async functions. Nothing else.
      assert.deepEqual(warnings.filter((w) => !/^node_modules\/bill-checkout\/dist\/bill-checkout\.js: The generated code contains 'async\/await' because this module is using "topLevelAwait"/.test(w)), [], output);
    } else {
      assert.match(output, /Compiled successfully/, output);
      assert.doesNotMatch(output, /⚠/, output);
    }

    const server = await nextStart(dir, next);
    t.after(() => server.stop());
    const { base } = server;
    // The checkout in the first HTML, from each entry: the element's host, its declarative shadow root, a ticket.
    const full = await (await fetch(`${base}/`)).text();
    assert.match(full, /<bill-checkout bill-id="B1" token="T1" mode="qr" locale="en"><template shadowrootmode="open"><style>/, bundler);
    assert.match(full, /<svg part="qr" role="img"/, bundler);
    assert.match(/data-ticket="([^"]+)"/.exec(full)?.[1] ?? '', TICKET, bundler);
    const light = await (await fetch(`${base}/light`)).text();
    assert.match(light, /<bill-checkout bill-id="B1" token="T1" mode="button" locale="en"><template shadowrootmode="open"><style>/, bundler);
    assert.match(/data-ticket="([^"]+)"/.exec(light)?.[1] ?? '', TICKET, bundler);
    assert.match(light, /data-style-hash="&#x27;sha256-[A-Za-z0-9+/]+=*&#x27;"/, bundler);

    // The stores from the bundle: the SQLite driver and the checkpoint worker loaded at run time, pg's absence said plainly.
    const stores = (await (await fetch(`${base}/api/store`)).json()) as { checkpoint: { frames: number } | null; checkpointFailure: string | null; postgres: string | null };
    assert.equal(stores.checkpointFailure, null, bundler);
    assert.ok(stores.checkpoint && stores.checkpoint.frames > 0, `${bundler}: ${JSON.stringify(stores)}`);
    assert.equal(stores.postgres, 'PostgreSQL needs the pg package, which bill-checkout does not install by itself: npm install pg', bundler);

    // In Chromium: not one console error or warning, the shadow roots attached, the element defined from the client bundle.
    for (const path of ['/', '/light', '/element']) {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
      if (path === '/element') {
        assert.equal(await page.evaluate(() => customElements.get('bill-checkout') !== undefined), true, `${bundler}: the element is defined`);
      } else {
        assert.equal(await page.locator(path === '/' ? 'bill-checkout [part~="qr"]' : 'bill-checkout [part~="pay-button"]').count(), 1, `${bundler}: ${path}`);
      }
      assert.deepEqual(problems, [], `${bundler}: ${path}: console errors or warnings`);
      await page.close();
    }
    await server.stop();
    assert.doesNotMatch(server.log(), /error|warn/i, server.log());
  }
});

test('Vite SSR: an entry importing bill-checkout/server and its render entry builds, external and bundled, and renders', { timeout: 600_000 }, async (t) => {
  const { dir } = await installed(t);
  const vite = join(dir, 'node_modules/vite/bin/vite.js');
  const outputs: Record<string, string> = {};
  for (const [name, config] of [['external', []], ['bundled', ['--config', 'vite/bundled.config.mjs']]] as const) {
    const started = performance.now();
    const output = await node(dir, [vite, 'build', '--ssr', 'vite/entry-server.js', '--outDir', `vite-out/${name}`, ...config]);
    t.diagnostic(`vite build --ssr (${name}): ${seconds(started)} s`);
    assert.doesNotMatch(output, /\(!\)|warn|error/i, output);
    const [entry] = (await scripts(join(dir, `vite-out/${name}`))).filter((f) => f.endsWith('entry-server.mjs') || f.endsWith('entry-server.js'));
    assert.ok(entry, `vite-out/${name} has the entry`);
    outputs[name] = entry;
  }
  // Vite's default leaves the package to Node; bundled, nothing of it is imported at run time.
  assert.match(await readFile(outputs.external!, 'utf8'), /from ['"]bill-checkout\/server['"]/);
  for (const file of await scripts(join(dir, 'vite-out/bundled'))) {
    assert.doesNotMatch(await readFile(file, 'utf8'), /['"]bill-checkout(\/[a-z/]+)?['"]/, `${file} imports nothing of the package`);
  }
  for (const entry of Object.values(outputs)) {
    const printed = await node(dir, ['--input-type=module', '-e',
      `const r = await (await import(${JSON.stringify(pathToFileURL(entry).href)})).render(); console.log(JSON.stringify(r));`]);
    const rendered = JSON.parse(printed) as { full: string; light: string; ticket: string; lightTicket: string };
    assert.match(rendered.full, /^<bill-checkout bill-id="B1" token="T1" mode="qr" locale="en"><template shadowrootmode="open"><style>/);
    assert.equal(rendered.light, rendered.full, 'the render entry draws what bill-checkout/server draws');
    assert.match(rendered.ticket, /^60000\.[A-Za-z0-9_-]{43}$/);
    assert.equal(rendered.lightTicket, rendered.ticket);
  }
});
