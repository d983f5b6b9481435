// npm run bench: every bench/*.mjs in order (building first when dist is missing); fails if one fails.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, widgetFile } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(widgetFile)) await build();

const failed = [];
for (const file of readdirSync(join(root, 'bench')).filter((f) => f.endsWith('.mjs')).sort()) {
  console.log(`# bench/${file}`);
  const { status } = spawnSync(process.execPath, [join(root, 'bench', file)], { cwd: root, stdio: 'inherit' });
  if (status !== 0) failed.push(file);
}
if (failed.length) {
  console.error(`bench failed: ${failed.join(', ')}`);
  process.exit(1);
}
