// The order-ticket snippets of docs/server.md (Node and Python) mint tickets the BFF accepts: a merchant
// copying them from docs/server.md gets working tickets.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { verifyOrderTicket } from '../../../server/domain/orders/order-ticket.js';

const run = promisify(execFile);
const SECRET = 'readme-ticket-secret-"quoted"-0123456789';
const ORDER = 'order-1042';

async function snippet(language: 'js' | 'python'): Promise<string> {
  const readme = await readFile(new URL('../../../docs/server.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Order tickets'));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  assert.ok(match, `docs/server.md has a ${language} ticket snippet under "Order tickets"`);
  return match[1]!;
}

async function check(ticket: string) {
  const now = Date.now();
  assert.match(ticket, /^\d+\.[A-Za-z0-9_-]{43}$/);
  assert.equal(await verifyOrderTicket(ORDER, ticket, SECRET, now), true);
  assert.equal(await verifyOrderTicket('order-1043', ticket, SECRET, now), false);
  const expiresIn = Number(ticket.split('.')[0]) - now;
  assert.ok(expiresIn > 14 * 60_000 && expiresIn <= 15 * 60_000, `expires in ${expiresIn} ms`);
}

const env = { ...process.env, ORDER_TICKET_SECRET: SECRET, ORDER_ID: ORDER };

test("docs/server.md's Node snippet mints a ticket the BFF accepts", async () => {
  const code = `const orderId = process.env.ORDER_ID;\n${await snippet('js')}\nconsole.log(ticket);`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { env });
  await check(stdout.trim());
});

test("docs/server.md's Python snippet mints a ticket the BFF accepts", async (t) => {
  const python = await run('python3', ['--version']).then(() => 'python3', () => null);
  if (python === null) {
    // Debian ships python3 on every image this project runs on; a machine without it cannot run the snippet.
    t.skip('python3 is not installed');
    return;
  }
  const code = `import os\norder_id = os.environ['ORDER_ID']\n${await snippet('python')}\nprint(ticket)`;
  const { stdout } = await run(python, ['-c', code], { env });
  await check(stdout.trim());
});
