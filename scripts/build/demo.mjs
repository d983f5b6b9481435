// demo/dist: the Vite demo, which `npm start` serves at `/`.
import { join } from 'node:path';
import { root } from './root.mjs';

/** The Vite demo (demo/ → demo/dist), which `npm start` serves at `/`. */
export async function buildDemo() {
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });
}
