// dist/react: `bill-checkout/react`, React's wrapper of the element (its declarations come with the
// element's, in types.mjs). Each module transformed alone, not bundled: react and the element stay
// the app's imports, and client.js's 'use client' (Next.js's react-server condition) stays first.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { root } from './root.mjs';

export const reactModules = ['index', 'client'];

/** dist/react/<module>.js from react/<module>.ts. */
export async function buildReact() {
  const out = join(root, 'dist/react');
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  for (const name of reactModules) {
    const source = await readFile(join(root, 'react', `${name}.ts`), 'utf8');
    const { code } = await esbuild.transform(source, { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: `react/${name}.ts` });
    if (source.startsWith("'use client'") && !/^['"]use client['"];/.test(code)) throw new Error(`dist/react/${name}.js lost its 'use client' directive`);
    await writeFile(join(out, `${name}.js`), code);
  }
}
