// npm run soak: the long forms of the reliability suites (test/reliability/soak.test.ts), each in a
// process of its own (a suite's heap would otherwise slow the next one's figures), then their
// figures in one table. SOAK_ONLY=<pattern> runs the suites whose names match it.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SUITES = ['faults', 'crashes', 'pg crashes', 'forgery', 'hostile input', 'load', 'abuse', 'secrets'];
const only = process.env.SOAK_ONLY ? new RegExp(process.env.SOAK_ONLY) : null;
const chosen = SUITES.filter((name) => !only || only.test(name));
if (chosen.length === 0) {
  console.error(`SOAK_ONLY=${process.env.SOAK_ONLY} matches none of: ${SUITES.join(', ')}`);
  process.exit(2);
}

// The load suite's one process plays the service and 1,000 widgets; with V8's default young
// generation its own major GCs (40-60 ms) were the largest part of the latency tail it reported.
// The BFF it measures runs with Node's defaults.
const NODE_OPTIONS = [process.env.NODE_OPTIONS, '--max-semi-space-size=64'].filter(Boolean).join(' ');

function run(name) {
  const args = ['--import', 'tsx', '--test', '--test-timeout=1800000', `--test-name-pattern=^${name}:`,
    'test/reliability/soak.test.ts'];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS } });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    process.stdout.write(chunk);
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code: code ?? 1, out })));
}

let failed = 0;
const figures = [];
for (const name of chosen) {
  const { code, out } = await run(name);
  if (code !== 0 || !/^# pass 1$/m.test(out)) failed++;
  figures.push(...out.matchAll(/RELIABILITY (\S+) (\{.*\})/g));
}
console.log('\n# soak figures');
for (const [, suite, json] of figures) console.log(`${suite.padEnd(16)} ${json}`);
console.log(`# ${chosen.length - failed} of ${chosen.length} suites passed`);
process.exit(failed ? 1 : 0);
