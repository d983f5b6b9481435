// `npm start` serves the built element, server, admin page and demo: build them first when one is missing.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const needed = ['dist/bill-checkout.js', 'dist/server/server/main.js', 'dist/admin/index.html', 'demo/dist/index.html'];
const missing = needed.filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.log(`prestart: ${missing.join(', ')} missing; running npm run build`);
  const result = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
