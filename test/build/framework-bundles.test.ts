// What a framework's server bundler makes of the package, installed from its tarball into a project
// with no configuration of its own (no serverExternalPackages, no aliases): a Next.js App Router app
// whose Server Components import bill-checkout/server and bill-checkout/server/render, built with
// Turbopack and with webpack, then served: the checkout in the first HTML, a route handler opening
// the SQLite store (its driver and checkpoint worker found at run time) and saying what to install
// for PostgreSQL, zero console errors and warnings in Chromium. And a Vite SSR build of an entry
// importing the same, with the package external (Vite's default) and bundled into the output.
// bill-checkout/react hydrating the server's markup: in the Next.js app (next start and next dev) and
// in a Vite React SSR page (built, and Vite's dev server), the card in the first HTML, the element
// taking over, its events as props, and no console error or warning; where the recipe before it (the
// markup in a <div dangerouslySetInnerHTML>) makes React's development build report a mismatch.
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
import { chromium, type Browser } from 'playwright-core';
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

/** `node <args>` in `dir` until its output matches `ready`, then its address (the port given, or the one it prints); its output so far in `log()`. */
async function serve(dir: string, args: string[], ready: RegExp, port?: number): Promise<{ base: string; log: () => string; stop: () => Promise<void> }> {
  const server = spawn(process.execPath, args, { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = once(server, 'exit');
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = ready.exec(log);
      if (match) resolve(port ? `http://127.0.0.1:${port}` : match[1]!);
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    void exited.then(([code]) => reject(new Error(`node ${args.join(' ')} exited (${String(code)}):\n${log}`)));
  });
  return {
    base,
    log: () => log,
    async stop() {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
      await exited;
    },
  };
}

/** `next start` (or `next dev`) on a free port of 127.0.0.1. */
async function nextServe(dir: string, next: string, command: 'start' | 'dev') {
  const port = await freePort();
  return serve(dir, [next, command, '-p', String(port), '-H', '127.0.0.1'], /Ready in/, port);
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

interface Visit {
  /** The console's errors and warnings, and uncaught errors. */
  problems: string[];
  /** On a page with the element: the outcome an onBillFinal prop wrote, the element's `billId` property once upgraded, its shadow root's parts. */
  outcome?: string;
  billId?: string;
  parts?: string;
}

/**
 * Opens `url` until the network is idle (and follows the link `click` names, a client-side
 * navigation); on a page with `#outcome` (bill-checkout/react), until the element's final event reached its prop.
 */
async function visit(browser: Browser, url: string, click?: string): Promise<Visit> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url, { waitUntil: 'networkidle' });
  if (click) {
    await page.click(click);
    await page.waitForSelector('bill-checkout');
  }
  if ((await page.locator('bill-checkout').count()) === 0) {
    await page.close();
    return { problems };
  }
  const withProps = (await page.locator('#outcome').count()) > 0;
  // The fixtures' fake BFF answers the element's read with the bill paid: bill-status, then bill-final.
  if (withProps) await page.waitForFunction(() => document.querySelector('#outcome')?.textContent === 'paid');
  else await page.waitForFunction(() => document.querySelector('bill-checkout')?.shadowRoot?.querySelector('[part~="qr"]') === null);
  const state = await page.evaluate(() => {
    const element = document.querySelector('bill-checkout');
    return {
      outcome: document.querySelector('#outcome')?.textContent ?? undefined,
      billId: element?.billId,
      parts: [...(element?.shadowRoot?.querySelectorAll('[part]') ?? [])].map((e) => e.getAttribute('part')).join(' '),
      statuses: (document.querySelector('#outcome') as HTMLElement | null)?.dataset.statuses,
    };
  });
  if (withProps) assert.equal(state.statuses, '1', 'onBillStatus was called once');
  await page.close();
  return { problems, outcome: state.outcome, billId: state.billId, parts: state.parts };
}

const HOST = /<bill-checkout bill-id="B1" token="T1" mode="qr" locale="en"><template shadowrootmode="open"><style>/;
const HYDRATION = /A tree hydrated but some attributes of the server rendered HTML didn't match the client properties/;

/** A page with bill-checkout/react: the card in its first HTML, then in Chromium taken over by the element, the event props called (`events`), nothing on the console. */
async function assertComponentPage(browser: Browser, url: string, label: string, events = true): Promise<void> {
  const html = await (await fetch(url)).text();
  assert.match(html, HOST, `${label}: the card in the first HTML`);
  assert.match(html, /<svg part="qr" role="img"/, label);
  const seen = await visit(browser, url);
  assert.deepEqual(seen.problems, [], `${label}: console errors or warnings`);
  assert.equal(seen.billId, 'B1', `${label}: the element upgraded, its properties from the server's attributes`);
  if (events) assert.equal(seen.outcome, 'paid', `${label}: onBillFinal`);
  // The paid card the element drew over the server's pending one (which had a QR code).
  assert.doesNotMatch(seen.parts ?? '', /\bqr\b/, `${label}: ${seen.parts ?? ''}`);
}

test('Next.js: Server Components importing bill-checkout/server and its render entry build with webpack and Turbopack, and serve', { timeout: 600_000 }, async (t) => {
  const { dir } = await installed(t);
  const next = join(dir, 'node_modules/next/dist/bin/next');
  const browser = await launch();
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

    const server = await nextServe(dir, next, 'start');
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
    for (const path of ['/', '/light', '/element', '/recipe']) {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle' });
      if (path === '/element') {
        assert.equal(await page.evaluate(() => customElements.get('bill-checkout') !== undefined), true, `${bundler}: the element is defined`);
      } else if (path !== '/recipe') {
        assert.equal(await page.locator(path === '/' ? 'bill-checkout [part~="qr"]' : 'bill-checkout [part~="pay-button"]').count(), 1, `${bundler}: ${path}`);
      }
      assert.deepEqual(problems, [], `${bundler}: ${path}: console errors or warnings`);
      await page.close();
    }
    await assertComponentPage(browser, `${base}/react`, `${bundler}: /react`);
    await assertComponentPage(browser, `${base}/react-server`, `${bundler}: /react-server`, false);
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

test('Next.js dev: bill-checkout/react hydrates with no warning, where the markup in a div does not', { timeout: 300_000 }, async (t) => {
  const { dir } = await installed(t);
  const next = join(dir, 'node_modules/next/dist/bin/next');
  const browser = await launch();
  t.after(() => browser.close());
  const started = performance.now();
  const server = await nextServe(dir, next, 'dev');
  t.after(() => server.stop());
  t.diagnostic(`next dev ready: ${seconds(started)} s`);

  const compiled = performance.now();
  await assertComponentPage(browser, `${server.base}/react`, 'next dev: /react');
  t.diagnostic(`next dev: /react compiled and checked: ${seconds(compiled)} s`);
  // Mounted by a navigation, with no server HTML to hydrate: the element draws the bill itself.
  const navigated = await visit(browser, `${server.base}/nav`, '#to-checkout');
  assert.deepEqual(navigated.problems, [], 'next dev: /nav → /react: console errors or warnings');
  assert.equal(navigated.billId, 'B1');
  // The recipe bill-checkout/react replaces: the browser made a shadow root of the div's template, and React's development build says so.
  const recipe = await visit(browser, `${server.base}/recipe`);
  assert.ok(recipe.problems.some((p) => p.startsWith('error: ') && HYDRATION.test(p)), recipe.problems.join('\n'));
  await server.stop();
  assert.doesNotMatch(server.log().replace(/A tree hydrated[\s\S]*$/, ''), /error|warn/i, server.log());
});

test('Vite React SSR: bill-checkout/react builds with no warning and hydrates, built and in Vite\'s dev server', { timeout: 300_000 }, async (t) => {
  const { dir } = await installed(t);
  const vite = join(dir, 'node_modules/vite/bin/vite.js');
  const browser = await launch();
  t.after(() => browser.close());
  for (const args of [['vite-react', '--outDir', 'dist/client'], ['vite-react', '--ssr', 'entry-server.js', '--outDir', 'dist/server']]) {
    const started = performance.now();
    const output = await node(dir, [vite, 'build', ...args]);
    t.diagnostic(`vite build ${args.join(' ')}: ${seconds(started)} s`);
    // Rolldown warns of a module-level 'use client' it bundles: the package keeps it for the react-server condition only.
    assert.doesNotMatch(output, /\(!\)|warn|error|directive/i, output);
  }

  for (const mode of ['build', 'dev'] as const) {
    const started = performance.now();
    const server = await serve(dir, ['vite-react/serve.mjs', mode], /listening (http:\S+)/);
    t.after(() => server.stop());
    await assertComponentPage(browser, `${server.base}/`, `vite ${mode}`);
    const recipe = await visit(browser, `${server.base}/recipe`);
    if (mode === 'build') {
      assert.deepEqual(recipe.problems, [], 'React\'s production build compares nothing');
    } else {
      assert.ok(recipe.problems.some((p) => p.startsWith('error: ') && HYDRATION.test(p)), recipe.problems.join('\n'));
    }
    await server.stop();
    t.diagnostic(`vite ${mode}: served and checked in ${seconds(started)} s`);
  }
});
