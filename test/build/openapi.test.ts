// The OpenAPI description is one the ecosystem's tools accept (`redocly lint`, recommended rules),
// and it names every route the app registers, so a new route cannot be left out of it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeApi } from '../../server/http/routes/openapi.js';
import { startHarness, TEST_ADMIN_TOKEN } from '../server/support/harness.js';

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: { pointer?: string }[];
}
interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Problem[];
}

/** Runs `redocly lint --format=json` with the recommended rules on `document`; its exit code is ignored, its report read. */
async function redoclyLint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [REDOCLY, 'lint', '--format=json', '--extends=recommended', '--max-problems=1000', file], {
        // In a folder of its own: no redocly.yaml of the project or above applies, only the recommended rules.
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      }, (error, out, err) => {
        if (out.trim().startsWith('{')) resolve(out);
        else reject(new Error(`redocly lint gave no JSON report (${error?.message ?? 'no error'}):\n${out}\n${err}`));
      });
    });
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const show = (p: Problem) => `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`;

test('redocly lint (recommended rules) finds no error in the OpenAPI description', async () => {
  const report = await redoclyLint(describeApi());
  const errors = report.problems.filter((p) => p.severity === 'error');
  assert.deepEqual(errors.map(show), [], 'redocly errors');
  assert.equal(report.totals.errors, 0);
  // What is left is known and explained in openapi.ts: no 4XX for /healthz, /readyz and the
  // description itself (none answers one), no 2XX for the return (it answers 303).
  const expected = new Set([
    'operation-4xx-response #/paths/~1healthz/get/responses',
    'operation-4xx-response #/paths/~1readyz/get/responses',
    'operation-4xx-response #/paths/~1api~1openapi.json/get/responses',
    'operation-2xx-response #/paths/~1api~1hooks~1return~1{ref}~1{returnToken}/get/responses',
  ]);
  const unexpected = report.problems.filter((p) => !expected.has(`${p.ruleId} ${p.location?.[0]?.pointer ?? ''}`));
  assert.deepEqual(unexpected.map(show), [], 'new redocly warnings');
});

test('every route the app registers is described, and every described operation is a route', async (t) => {
  const h = await startHarness(t, { env: { ADMIN_TOKEN: TEST_ADMIN_TOKEN } });
  // Endpoints, not middleware: `use()` registers ALL, guards cover wildcards. OPTIONS is the CORS
  // preflight of the browser routes, which the stamp answers (described in info, not per path).
  const registered = new Set(h.app.routes
    .filter((r) => r.method !== 'ALL' && r.method !== 'OPTIONS' && !r.path.includes('*'))
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`));
  assert.ok(registered.size >= 11, `only ${registered.size} routes found: ${[...registered].join(', ')}`);

  const doc = describeApi() as { paths: Record<string, Record<string, { operationId?: string }>> };
  const described = new Set<string>();
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      described.add(`${method.toUpperCase()} ${path}`);
      assert.ok(operation.operationId, `${method} ${path} has an operationId`);
      assert.ok(!operationIds.has(operation.operationId), `operationId ${operation.operationId} is unique`);
      operationIds.add(operation.operationId);
    }
  }
  assert.deepEqual([...registered].filter((r) => !described.has(r)), [], 'routes missing from the OpenAPI description');
  assert.deepEqual([...described].filter((d) => !registered.has(d)), [], 'described operations that are no route');
});
