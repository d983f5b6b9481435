// npm run soak: the long forms of the reliability suites (test/reliability/soak.test.ts), then
// their figures in one table. SOAK_ONLY=<name pattern> runs a subset (node --test-name-pattern).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-timeout=1800000'];
if (process.env.SOAK_ONLY) args.push(`--test-name-pattern=${process.env.SOAK_ONLY}`);
args.push('test/reliability/soak.test.ts');

// The load suite's one process plays the service and 1,000 widgets; with V8's default young
// generation its own major GCs (40-60 ms) were the largest part of the latency tail it reported.
// The BFF it measures runs with Node's defaults.
const NODE_OPTIONS = [process.env.NODE_OPTIONS, '--max-semi-space-size=64'].filter(Boolean).join(' ');
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS } });
let out = '';
child.stdout.on('data', (chunk) => {
  out += chunk;
  process.stdout.write(chunk);
});
child.on('exit', (code) => {
  const figures = [...out.matchAll(/RELIABILITY (\S+) (\{.*\})/g)];
  console.log('\n# soak figures');
  for (const [, suite, json] of figures) console.log(`${suite.padEnd(16)} ${json}`);
  process.exit(code ?? 1);
});
