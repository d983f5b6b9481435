// The package as a merchant gets it: `npm pack`, installed into an empty project with
// `npm install --omit=dev` (and better-sqlite3 where Node has no SQLite of its own), used with
// plain `node` (no tsx, no esbuild; pg not installed: SQLite only), and type-checked from a
// TypeScript file and a React .tsx file; the admin page served from it. Also what the ecosystem's
// own checkers say of it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { test } from 'node:test';
import { build, freePort, npm, pack, ROOT, run } from './support/packed.js';

const FIXTURES = join(ROOT, 'test/build/fixtures/consumer');
const ADMIN_TOKEN = 'package-test-admin-token-0123456789abcdef';

test('publint finds no error, and attw finds every entry resolvable for ESM consumers', { timeout: 300_000 }, async () => {
  await build();
  const lint = await run(process.execPath, [join(ROOT, 'node_modules/publint/src/cli.js'), '--strict'], { cwd: ROOT })
    .then((r) => r.stdout + r.stderr, (e: { stdout: string; stderr: string }) => assert.fail(`publint failed:\n${e.stdout}${e.stderr}`));
  assert.match(lint, /All good/);
  const attw = await run(process.execPath, [join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js'), '--pack', '.', '--profile', 'esm-only', '--format', 'json'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
    .then((r) => r.stdout, (e: { stdout: string }) => e.stdout);
  const { analysis } = JSON.parse(attw) as { analysis: { entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> } };
  for (const [entry, { resolutions }] of Object.entries(analysis.entrypoints)) {
    for (const kind of ['node16-esm', 'bundler']) {
      assert.ok(resolutions[kind]?.resolution?.fileName, `${entry} resolves for ${kind}`);
    }
  }
  assert.deepEqual(Object.keys(analysis.entrypoints).sort(), ['.', './custom-elements.json', './package.json', './react', './sandbox', './server', './server/render']);
});

test('npm pack, npm install --omit=dev, plain node: serveBillCheckout serves, takes a payment, and the types check', { timeout: 600_000 }, async (t) => {
  await build();
  const dir = await mkdtemp(join(tmpdir(), 'bill-checkout-consumer-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { tarball, paths } = await pack(dir);
  for (const needed of ['dist/bill-checkout.js', 'dist/bill-checkout.sri.txt', 'dist/bill-checkout.release.json', 'dist/server/server/index.js', 'dist/server/server/index.d.ts', 'dist/types/widget/index.d.ts', 'custom-elements.json']) {
    assert.ok(paths.includes(needed), `the tarball has ${needed}`);
  }
  // The built release file (scripts/build/release.mjs) names the versioned drop-in, packed, with its hash and size.
  const release = JSON.parse(await readFile(join(ROOT, 'dist/bill-checkout.release.json'), 'utf8')) as { file: string; integrity: string; bytes: number };
  assert.ok(paths.includes(`dist/${release.file}`), `the tarball has ${release.file}, which release.json names`);
  const versioned = await readFile(join(ROOT, 'dist', release.file));
  assert.equal(release.integrity, `sha384-${createHash('sha384').update(versioned).digest('base64')}`);
  assert.equal(release.bytes, versioned.length);
  for (const module of ['id', 'ms', 'th', 'vi', 'zh-CN', 'native-bridge']) {
    assert.ok(paths.some((path) => new RegExp(`^dist/on-demand/${module}-[0-9a-f]{10}\\.js$`).test(path)), `the ${module} module is packed beside the element`);
  }
  assert.ok(!paths.some((p) => /^(test|bench|server|widget|sandbox|demo|admin)\//.test(p) && !p.endsWith('.md')), 'no sources or tests in the tarball');
  assert.deepEqual(paths.filter((p) => /(^|\/)demo(\/|[-.])/.test(p)), [], 'no demo file in the tarball');
  // Every relative link of the packed Markdown files (the README first) leads to a packed file.
  for (const doc of paths.filter((p) => p.endsWith('.md'))) {
    const text = await readFile(join(ROOT, doc), 'utf8');
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const resolved = posix.normalize(posix.join(posix.dirname(doc), target!)).replace(/\/$/, '');
      assert.ok(paths.some((p) => p === resolved || p.startsWith(`${resolved}/`)), `${doc} links to ${target}, which the tarball has`);
    }
  }
  // The admin page, built: its page and hashed assets; nothing of the demo (its pages, its server part).
  assert.ok(paths.includes('dist/admin/index.html'), 'the tarball has the admin page');
  assert.ok(paths.some((p) => /^dist\/admin\/assets\/.+-[\w-]{8,}\.js$/.test(p)), 'and its script');
  assert.ok(paths.some((p) => /^dist\/admin\/assets\/.+-[\w-]{8,}\.css$/.test(p)), 'and its styles');
  assert.deepEqual(paths.filter((p) => /northwind/i.test(p)), [], 'nothing of the demo shop');

  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true, type: 'module' }));
  // A runtime without SQLite of its own (Node 20) needs better-sqlite3, which the merchant installs beside the package.
  const builtInSqlite = Number(process.versions.node.split('.')[0]) >= 22;
  const packages = [tarball, ...(builtInSqlite ? [] : ['better-sqlite3'])];
  await run(npm, ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', ...packages], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
  for (const tool of ['tsx', 'esbuild', 'typescript']) {
    await assert.rejects(readFile(join(app, 'node_modules', tool, 'package.json')), `${tool} is not installed for production`);
  }
  // The server needs none of these: the element's own (bundled into the drop-in) and the drivers of the stores it does not use.
  for (const optional of ['lit', 'qrcode', 'pg', ...(builtInSqlite ? ['better-sqlite3'] : [])]) {
    await assert.rejects(readFile(join(app, 'node_modules', optional, 'package.json')), `${optional} is not installed for the server`);
  }

  // Plain node, the installed package, the embedded sandbox: create a bill, pay it, read it paid.
  await cp(join(FIXTURES, 'serve.mjs'), join(app, 'serve.mjs'));
  const port = await freePort();
  const child = spawn(process.execPath, ['serve.mjs'], {
    cwd: app, env: { PATH: process.env.PATH ?? '', PORT: String(port), DATABASE_URL: `file:${join(app, 'data.sqlite')}`, ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => void child.kill('SIGKILL'));
  let output = '';
  let noticed: () => void = () => undefined;
  // onFinal's line: the notice worker calls it after the payment is stored, on its own time.
  const notice = new Promise<void>((resolve) => (noticed = resolve));
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /READY (\S+) 2/.exec(output);
      if (m) resolve(m[1]!);
      if (/NOTICE .*"outcome":"paid"/.test(output)) noticed();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve.mjs exited (${code}):\n${output}`)));
  });
  const base = await ready;
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  assert.equal(await (await fetch(`${base}/shop`)).text(), 'the merchant shop');
  // No demo in the package: / says what runs (no build advice), and no demo page or route answers.
  const home = await (await fetch(`${base}/`)).text();
  assert.match(home, /A checkout's backend runs here/);
  assert.doesNotMatch(home, /npm run build|Northwind/);
  for (const path of ['/plain.html', '/index.html', '/react.html']) assert.equal((await fetch(`${base}${path}`)).status, 404, path);
  assert.equal((await fetch(`${base}/demo/orders`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status, 404);
  // An order the merchant's hook does not know.
  const unknown = await fetch(`${base}/api/bills`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ orderId: 'mug-2' }) });
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'order_not_found');
  // The admin page, from the installed package (ADMIN_TOKEN is set): the page, its CSP, its files.
  const admin = await fetch(`${base}/admin`);
  assert.equal(admin.status, 200);
  assert.equal(admin.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.match(admin.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  const adminFiles = [...(await admin.text()).matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  assert.equal(adminFiles.length, 2, 'its script and its styles');
  for (const file of adminFiles) {
    const res = await fetch(`${base}${file}`);
    assert.equal(res.status, 200, file);
    assert.match(res.headers.get('content-type') ?? '', file.endsWith('.css') ? /^text\/css/ : /^text\/javascript/, file);
    await res.body?.cancel();
  }
  const answered = await fetch(`${base}/api/admin/customers`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(answered.status, 200);
  await answered.body?.cancel();
  const created = await fetch(`${base}/api/bills`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ orderId: 'mug-1' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const bill = (await created.json()) as { billId: string; token: string; billAmount: string };
  // The amount as the merchant's catalogue gave it (decimal text, kept as given).
  assert.equal(bill.billAmount, '12.50');
  assert.equal((await fetch(`${base}/sandbox/_control/bills/${bill.billId}/pay`, { method: 'POST' })).status, 200);
  // Its callback, or the requery a read starts behind its answer, stores the payment: read until it shows.
  const read = async () => ((await (await fetch(`${base}/api/bills/${bill.billId}?token=${bill.token}`)).json()) as { outcome: string }).outcome;
  let outcome = await read();
  while (outcome === 'pending') outcome = await read();
  assert.equal(outcome, 'paid');
  const dropIn = await fetch(`${base}/bill-checkout.js`);
  assert.equal(dropIn.status, 200);
  assert.match(dropIn.headers.get('content-type') ?? '', /javascript/);
  await dropIn.body?.cancel();
  await notice;
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, output);
  assert.match(output, /NOTICE .*"outcome":"paid".*"livemode":false/);

  // Where there is no DOM (plain node, a framework's server render): importing the element does
  // nothing and throws nothing, and React 19 renders a component holding <bill-checkout> to a string,
  // with the server-rendered markup inside.
  const imported = await run(process.execPath, ['--input-type=module', '-e',
    "const m = await import('bill-checkout'); console.log(typeof customElements, m.BillCheckout === undefined, m.safeUrl('https://pay.example/b'))"], { cwd: app });
  assert.equal(imported.stdout.trim(), 'undefined true https://pay.example/b');
  for (const pkg of ['react', 'react-dom', 'scheduler']) await symlink(join(ROOT, 'node_modules', pkg), join(app, 'node_modules', pkg), 'dir');
  await cp(join(FIXTURES, 'react-ssr.mjs'), join(app, 'react-ssr.mjs'));
  const rendered = await run(process.execPath, ['react-ssr.mjs'], { cwd: app });
  assert.match(rendered.stdout, /^<main><h1>Your order<\/h1><div style="display:contents"><bill-checkout bill-id="B1" token="T1" mode="qr" locale="en"><template shadowrootmode="open"><style>/);
  assert.match(rendered.stdout, /<svg part="qr" role="img"/);

  // The declarations, from a TypeScript file and a React .tsx file, as a merchant's editor sees them.
  await cp(FIXTURES, app, { recursive: true, filter: (src) => !src.endsWith('.mjs') });
  await mkdir(join(app, 'node_modules/@types'), { recursive: true });
  for (const types of ['react', 'node']) await symlink(join(ROOT, 'node_modules/@types', types), join(app, 'node_modules/@types', types), 'dir');
  // The element's class extends Lit's LitElement: an app that type-checks against it has lit (an optional peer dependency).
  await symlink(join(ROOT, 'node_modules/lit'), join(app, 'node_modules/lit'), 'dir');
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).then(() => '', (e: { stdout: string }) => e.stdout);
  assert.equal(checked, '', 'the consumer files type-check');
});
