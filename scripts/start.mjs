// `npm start`: the compiled server (dist/server, made by `npm run build`) when it is there, so a
// production install needs neither tsx nor esbuild; else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/server/server/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/main.ts');
}
