// The documentation a clone holds: every relative link of its Markdown files leads to a file or
// folder of the repository, and the service's interface in docs/ is the one document about it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

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

// README.md, CHANGELOG.md and the guides of docs/: every link (relative ones to a file, and each #anchor to a
// heading of its file), every code sample (JavaScript and TypeScript parse, JSON parses, shell is
// valid bash, none is run here), the release example read from a real build, the deploy files.
const guides = [join(root, 'README.md'), join(root, 'CHANGELOG.md'), ...markdownFiles(join(root, 'docs'))];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

function codeBlocks(markdown: string): { lang: string; code: string; line: number }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1]!, code: m[2]!, line: markdown.slice(0, m.index).split('\n').length,
  }));
}

test('README and docs/: every link leads to a file, and every #anchor to a heading of it', () => {
  const broken: string[] = [];
  for (const file of guides) {
    const text = readFileSync(file, 'utf8');
    for (const [, target] of withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : join(dirname(file), path);
      if (!existsSync(resolved)) { broken.push(`${relative(root, file)} → ${target} (no such file)`); continue; }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${relative(root, file)} → ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('README and docs/: every JavaScript and TypeScript sample parses, JSON samples parse, shell samples are valid bash', async () => {
  const ts = (await import('typescript')).default;
  const wrong: string[] = [];
  for (const file of guides) {
    for (const { lang, code, line } of codeBlocks(readFileSync(file, 'utf8'))) {
      const where = `${relative(root, file)}:${line} (${lang})`;
      if (['js', 'mjs', 'ts', 'tsx', 'jsx'].includes(lang)) {
        const kind = { js: ts.ScriptKind.JS, mjs: ts.ScriptKind.JS, ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, jsx: ts.ScriptKind.JSX }[lang as 'js'];
        const source = ts.createSourceFile(`sample.${lang}`, code, ts.ScriptTarget.Latest, false, kind);
        const diagnostics = (source as unknown as { parseDiagnostics: { messageText: unknown; start: number }[] }).parseDiagnostics;
        for (const d of diagnostics) wrong.push(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText as string, ' ')} at ${code.slice(d.start, d.start + 30)}`);
      } else if (lang === 'json') {
        try { JSON.parse(code); } catch (error) { wrong.push(`${where}: ${(error as Error).message}`); }
      } else if (lang === 'sh' || lang === 'bash') {
        const checked = spawnSync('bash', ['-n'], { input: code, encoding: 'utf8' });
        if (checked.status !== 0) wrong.push(`${where}: ${checked.stderr.trim()}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('README is the short path: short, and installs the package the way that works', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length <= 250, `README has ${readme.split('\n').length} lines`);
  // Not published yet: no install step from the registry by name.
  assert.doesNotMatch(withoutCode(readme).replace(/`npm install bill-checkout` fails/, ''), /npm (install|i) bill-checkout(?![-\w./])/);
  assert.match(readme, /npm pack/);
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  for (const [tarball] of readme.matchAll(/bill-checkout-\d+\.\d+\.\d+\.tgz/g)) assert.equal(tarball, `bill-checkout-${version}.tgz`);
  // No versioned file name or SRI hash from some build stands in docs as if it were yours.
  for (const file of guides) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /bill-checkout\.[0-9a-f]{16}\.js|sha384-[A-Za-z0-9+/]{20,}/, relative(root, file));
  }
});

test('docs/embedding.md\'s release command prints the tag of the build it runs on', async (t) => {
  const { buildRelease } = await import(pathToFileURL(join(root, 'scripts/build/release.mjs')).href) as {
    buildRelease(dist: string): Promise<{ file: string; integrity: string }>;
  };
  const { buildWidget, widgetFile } = await import(pathToFileURL(join(root, 'scripts/build/widget.mjs')).href) as {
    buildWidget(): Promise<unknown>; widgetFile: string;
  };
  if (!existsSync(widgetFile)) await buildWidget();
  const app = mkdtempSync(join(tmpdir(), 'docs-release-'));
  t.after(() => rmSync(app, { recursive: true, force: true }));
  mkdirSync(join(app, 'dist'));
  copyFileSync(widgetFile, join(app, 'dist/bill-checkout.js'));
  const release = await buildRelease(join(app, 'dist'));
  const command = codeBlocks(readFileSync(join(root, 'docs/embedding.md'), 'utf8'))
    .find((b) => b.lang === 'sh' && b.code.includes('bill-checkout.release.json'));
  assert.ok(command, 'docs/embedding.md has the command');
  const printed = spawnSync('bash', ['-c', command.code], { cwd: app, encoding: 'utf8' });
  assert.equal(printed.status, 0, printed.stderr);
  const tag = /src="https:\/\/pay\.shop\.example\/([^"]+)" integrity="([^"]+)"/.exec(printed.stdout);
  assert.ok(tag, printed.stdout);
  assert.equal(tag[1], release.file);
  assert.equal(tag[2], `sha384-${createHash('sha384').update(readFileSync(join(app, 'dist', tag[1]!))).digest('base64')}`);
});

test('docs/deploy/: the systemd unit verifies; the Dockerfile runs what the package holds', (t) => {
  const dockerfile = readFileSync(join(root, 'docs/deploy/Dockerfile'), 'utf8');
  const instructions = dockerfile.replace(/\\\n/g, ' ').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  for (const line of instructions) {
    assert.match(line, /^(FROM|WORKDIR|COPY|RUN|ENV|USER|VOLUME|EXPOSE|HEALTHCHECK|CMD|ARG|LABEL) /, line);
  }
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!) as string[];
  const entry = cmd[1]!.replace('node_modules/bill-checkout/', '');
  const unit = readFileSync(join(root, 'docs/deploy/bill-checkout.service'), 'utf8');
  assert.ok(unit.includes(`/srv/bill-checkout/node_modules/bill-checkout/${entry}`), 'the unit starts the same entry');
  const packed = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] }).files;
  assert.ok(packed.includes('dist/server') && existsSync(join(root, entry.replace(/^dist\/server\//, '').replace(/\.js$/, '.ts'))), `${entry} is built from a source`);
  for (const name of ['HEALTHCHECK', 'USER node', 'NODE_ENV=production']) assert.ok(dockerfile.includes(name), name);

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (analyze.status !== 0) return t.skip('systemd-analyze is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'docs-unit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Verified as written, with this machine's node in place of /usr/bin/node (which systemd checks exists).
  writeFileSync(join(dir, 'bill-checkout.service'), unit.replace('/usr/bin/node', process.execPath));
  const verified = spawnSync('systemd-analyze', ['verify', '--man=no', join(dir, 'bill-checkout.service')], { encoding: 'utf8' });
  assert.equal(verified.status, 0, verified.stderr);
  assert.equal(verified.stderr.trim(), '');
});

test('docs/deploy/nginx.conf: nginx -t takes it, filled in as its first lines show (TLS) and as the flash-sale bench fills it', async (t) => {
  const nginx = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  if (spawnSync(nginx, ['-v'], { encoding: 'utf8' }).status !== 0) return t.skip('nginx is not installed (.ci/run installs it)');
  const { renderNginxConf } = await import(pathToFileURL(join(root, 'bench/lib/flash-topology.mjs')).href) as {
    renderNginxConf(values: Record<string, string>): string;
  };
  const dir = mkdtempSync(join(tmpdir(), 'docs-nginx-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cert = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=pay.shop.example', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
  assert.equal(cert.status, 0, cert.stderr);
  for (const sub of ['run', 'temp', 'log']) mkdirSync(join(dir, sub));
  const paths = { TLS_CERT: join(dir, 'cert.pem'), TLS_KEY: join(dir, 'key.pem'), RUN_DIR: join(dir, 'run'), TEMP_DIR: join(dir, 'temp'), LOG_DIR: join(dir, 'log') };
  for (const listen of ['443 ssl http2 backlog=4096', '127.0.0.1:8080 backlog=4096']) {
    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, renderNginxConf({ BFF_1: '10.0.0.11:8787', BFF_2: '10.0.0.12:8787', LISTEN: listen, SERVER_NAME: 'pay.shop.example', ...paths }));
    const checked = spawnSync(nginx, ['-t', '-p', dir, '-c', conf, '-e', join(dir, 'log', 'error.log')], { encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stderr);
  }
});
