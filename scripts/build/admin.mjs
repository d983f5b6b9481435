// dist/admin: the admin page (admin/ → dist/admin), which the package ships and serveBillCheckout
// serves at /admin when ADMIN_TOKEN is set: Vite, with admin/vite.config.ts (hashed assets, no data: URLs).
import { join } from 'node:path';
import { root } from './root.mjs';

/** dist/admin: index.html and its hashed assets/. */
export async function buildAdmin() {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: join(root, 'admin/vite.config.ts'), logLevel: 'warn' });
}
