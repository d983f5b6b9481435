// Forks bff-child.mjs and talks to it: `await bff.call('memory')`.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { commandCaller } from './ipc.mjs';
import { announceServerBuild } from './server-modules.mjs';

const child = fileURLToPath(new URL('./bff-child.mjs', import.meta.url));

/** setup: { upstreamUrl, env?, bare?, floor?, nodeFlags? (the BFF's Node options, e.g. --max-old-space-size=640) }. Resolves once the child listens. */
export function spawnBff(setup) {
  announceServerBuild();
  const proc = fork(child, [], {
    // BENCH_CPU_PROF=DIR writes .cpuprofile files of the BFF there (for when a figure misses its
    // goal): the whole process, and the phases a bench asks for (the `profile` command).
    execArgv: ['--expose-gc', ...(setup.nodeFlags ?? []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, BENCH_BFF: JSON.stringify(setup) },
    // The BFF's info logs go nowhere, as they would to a log shipper; its errors show.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { call, answer } = commandCaller(proc);
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`the BFF child exited (${code}) before it was ready`)));
    proc.on('message', (msg) => {
      if (msg.ready) {
        proc.removeAllListeners('exit');
        resolve({
          url: msg.url,
          bareUrl: msg.bareUrl,
          floorUrl: msg.floorUrl,
          pid: msg.pid,
          call,
          async close() {
            const exited = new Promise((res) => proc.once('exit', res));
            await call('exit').catch(() => undefined);
            await exited;
          },
        });
        return;
      }
      answer(msg);
    });
  });
}
