// The admin page (admin/ → dist/admin), which the package ships and serveBillCheckout serves at
// /admin when ADMIN_TOKEN is set: Vite, with admin/vite.config.ts (hashed assets, no data: URLs).
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** dist/admin: index.html and its hashed assets/. */
export async function buildAdmin() {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'admin/vite.config.ts'), logLevel: 'warn' });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await buildAdmin();
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}
