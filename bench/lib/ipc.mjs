// Commands over a forked child's IPC channel, both ends: the parent calls `call(cmd, args)` and
// hands each message to `answer`; the child serves its commands with `serveCommands`.
import process from 'node:process';

/** The parent's end: `call` sends a command, `answer(msg)` settles the call a message answers (false for any other message). */
export function commandCaller(proc) {
  const waiting = new Map();
  let nextId = 1;
  return {
    call(cmd, args) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        proc.send({ id, cmd, args });
      });
    },
    answer(msg) {
      const w = waiting.get(msg?.id);
      if (!w) return false;
      waiting.delete(msg.id);
      if (msg.error) w.reject(new Error(msg.error));
      else w.resolve(msg.result);
      return true;
    },
  };
}

/** The child's end: each `{id, cmd, args}` from the parent runs `commands[cmd](args)` and is answered with its result or error. */
export function serveCommands(commands) {
  process.on('message', async ({ id, cmd, args }) => {
    try {
      process.send({ id, result: await commands[cmd](args ?? {}) });
    } catch (error) {
      process.send({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
