// `npm start`: the compiled server (dist/server, made by `npm run build`) when it is there, so a
// production install needs neither tsx nor esbuild; else the TypeScript sources through tsx.
//
// npm does not pass SIGTERM or SIGINT on to the script it runs: a process manager that stops
// `npm start` would leave this process serving. So when the npm that started it goes away, it
// stops as on SIGTERM (the server's own graceful close). A process manager should rather run
// `node dist/server/server/main.js` itself (docs/operations.md).
import { existsSync } from 'node:fs';
import process from 'node:process';

if (process.env.npm_lifecycle_event === 'start') {
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  watch.unref();
}

const compiled = new URL('../dist/server/server/main.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/main.ts');
}
