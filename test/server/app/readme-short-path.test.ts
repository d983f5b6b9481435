// README's short path, followed as a merchant follows it: the secrets made by its commands, the BFF
// started with its environment, its shop.mjs (with docs/webhooks/verify.mjs beside it) serving the
// order lookup, the page with its ticket and the webhook; the bill created as the element creates it,
// paid on the sandbox's pay page, and the webhook verified by shop.mjs. Every step is read from
// README.md, so README drifting from what works fails here. Two changes only: free ports for 8787
// and 3000, and the SQLite file in a temporary folder.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startMain } from '../support/child.js';
import { freePort } from '../support/servers.js';

const root = new URL('../../..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));

function block(lang: string, marker: string): string {
  const found = blocks.find((b) => b.lang === lang && b.code.includes(marker));
  assert.ok(found, `README has a ${lang} block with ${marker}`);
  return found.code;
}

/** Lines from `child`'s stdout, awaited one pattern at a time. */
function lines(child: ReturnType<typeof spawn>) {
  let text = '';
  const waiting: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const w of [...waiting]) {
      const line = text.split('\n').find((l) => w.pattern.test(l));
      if (line !== undefined) { waiting.splice(waiting.indexOf(w), 1); w.resolve(line); }
    }
  });
  return {
    next: (pattern: RegExp) => new Promise<string>((resolve) => {
      const line = text.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) resolve(line); else waiting.push({ pattern, resolve });
    }),
    text: () => text,
  };
}

test("README's short path: a paid bill and a verified webhook", { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'readme-short-path-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // 1. The secrets, made by README's own commands.
  const secretsBlock = block('sh', 'export ORDER_TICKET_SECRET=');
  const { stdout } = await promisify(execFile)('bash', ['-c', `${secretsBlock}\necho "$ORDER_TICKET_SECRET"; echo "$MERCHANT_WEBHOOK_SECRET"`]);
  const [ticketSecret, webhookSecret] = stdout.trim().split('\n') as [string, string];
  assert.ok(ticketSecret.length >= 32 && webhookSecret.startsWith('whsec_'));
  const secrets: Record<string, string> = { ORDER_TICKET_SECRET: ticketSecret, MERCHANT_WEBHOOK_SECRET: webhookSecret };

  // The BFF, started with README's environment (its last line, the compiled entry, is server/main.ts's build).
  const bffPort = await freePort();
  const shopPort = await freePort();
  const ports = (text: string) => text.replaceAll('localhost:8787', `localhost:${bffPort}`).replaceAll('localhost:3000', `localhost:${shopPort}`);
  const startBlock = block('sh', 'node node_modules/bill-checkout/dist/server/server/main.js');
  const env: Record<string, string> = {};
  for (const line of startBlock.trim().split('\n')) {
    const assignment = /^([A-Z_]+)=(.*?)\s*\\$/.exec(line);
    if (assignment) {
      const value = assignment[2]!.replace(/^"\$([A-Z_]+)"$/, (_, name: string) => secrets[name]!);
      env[assignment[1]!] = assignment[1] === 'PORT' ? String(bffPort) : ports(value);
    } else {
      assert.equal(line, 'node node_modules/bill-checkout/dist/server/server/main.js');
    }
  }
  assert.ok(env.ORDER_LOOKUP_URL && env.MERCHANT_WEBHOOK_URL && env.ALLOWED_ORIGINS);
  const bff = startMain({ ...env, DATABASE_URL: `file:${join(dir, 'bff.sqlite')}` });
  t.after(() => bff.kill('SIGTERM'));

  // 2. shop.mjs as README gives it, beside a copy of docs/webhooks/verify.mjs.
  const shopCode = block('js', '// shop.mjs');
  assert.match(shopCode, /\.listen\(3000, 'localhost'\);/);
  writeFileSync(join(dir, 'shop.mjs'), ports(shopCode)
    .replace(".listen(3000, 'localhost');", `.listen(${shopPort}, 'localhost', () => console.log('shop listening'));`));
  copyFileSync(join(root, 'docs/webhooks/verify.mjs'), join(dir, 'verify.mjs'));
  const shop = spawn(process.execPath, ['shop.mjs'], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...secrets }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => { shop.kill(); });
  const shopLines = lines(shop);
  await Promise.all([bff.ready, shopLines.next(/shop listening/)]);
  const shopUrl = `http://localhost:${shopPort}`;
  const bffUrl = `http://localhost:${bffPort}`;

  // 3. The page, as the browser gets it: the element, its endpoint and its ticket.
  const page = await (await fetch(`${shopUrl}/checkout/order-1042`)).text();
  assert.ok(page.includes(`<script type="module" src="${bffUrl}/bill-checkout.js"></script>`));
  const element = /<bill-checkout endpoint="([^"]+)" order-id="([^"]+)" order-ticket="([^"]+)">/.exec(page);
  assert.ok(element, page);
  const [, endpoint, orderId, orderTicket] = element as unknown as [string, string, string, string];

  // The element's create (widget/bff-client.ts): from the shop's origin, with an idempotency key.
  const created = await fetch(`${endpoint}/bills`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), origin: shopUrl },
    body: JSON.stringify({ orderId, orderTicket }),
  });
  const bill = await created.json() as { billId: string; token: string; billUrl: string; billAmount: string; outcome: string };
  assert.equal(created.status, 201, JSON.stringify(bill));
  assert.equal(created.headers.get('access-control-allow-origin'), shopUrl);
  assert.equal(bill.outcome, 'pending');
  assert.equal(bill.billAmount, '125000.00');

  // 4. Pay: the sandbox's pay page at billUrl, its Pay button.
  const payPage = await (await fetch(bill.billUrl)).text();
  const action = /<form method="post" action="([^"]*\/pay[^"]*)"><button class="pay"/.exec(payPage);
  assert.ok(action, 'the pay page has a Pay button');
  const paid = await fetch(new URL(action[1]!.replaceAll('&amp;', '&'), bill.billUrl), { method: 'POST', redirect: 'manual' });
  assert.ok(paid.status >= 300 && paid.status < 400, `the pay button answers ${paid.status}`);
  // The pay page sends the browser back through the BFF, which sends the browser that started the
  // bill (its create's cookie) on to RETURN_URL.
  const started = created.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');
  assert.ok(started, 'the create marks the browser that started the bill');
  const back = await fetch(new URL(paid.headers.get('location')!, bill.billUrl), { headers: { cookie: started }, redirect: 'manual' });
  const landing = new URL(back.headers.get('location') ?? '', bffUrl);
  assert.equal(`${landing.origin}${landing.pathname}`, env.RETURN_URL);
  assert.equal(landing.searchParams.get('billId'), bill.billId);
  assert.equal(await (await fetch(landing)).text(), 'Thank you.');

  // 5. shop.mjs verified the webhook and marked the order paid; the element reads paid.
  const line = await shopLines.next(/^webhook /);
  assert.match(line, /^webhook msg_\S+: order-1042 paid$/);
  assert.doesNotMatch(shopLines.text(), /webhook refused/);
  const read = await fetch(`${endpoint}/bills/${encodeURIComponent(bill.billId)}?token=${encodeURIComponent(bill.token)}`);
  assert.equal(((await read.json()) as { outcome: string }).outcome, 'paid');

  // A forged webhook is refused by the same code.
  const forged = await fetch(`${shopUrl}/webhooks/bill-checkout`, {
    method: 'POST',
    headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    body: JSON.stringify({ type: 'bill.final', data: { orderId: 'order-1042', outcome: 'paid' } }),
  });
  assert.equal(forged.status, 400);
  assert.match(await shopLines.next(/webhook refused/), /no valid signature/);
});
