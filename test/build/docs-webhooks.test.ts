// The webhook verification samples of docs/webhooks/ (Node, Python, PHP, Go), each run as a merchant
// runs it against a notice a real BFF signed and sent: accepted as sent; refused with its body
// tampered with, its signature from another secret, or its timestamp outside the tolerance. Each is
// also checked against the Standard Webhooks test vector. A language whose toolchain is missing is
// skipped, saying so (.ci/run installs python3, php-cli and golang-go from Debian).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startHarness, TEST_TICKET_SECRET } from '../server/support/harness.js';
import { serveOn } from '../server/support/servers.js';

const root = new URL('../..', import.meta.url).pathname;
const samples = join(root, 'docs/webhooks');

interface Notice { headers: Record<string, string>; body: string }
interface Outcome { code: number; stdout: string; stderr: string }

function run(command: string, args: string[], input: string, env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { cwd: samples, env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      if (code === null) reject(error!); else resolve({ code, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

const has = (command: string, args: string[]) => run(command, args, '', {}).then((o) => o.code === 0, () => false);

// A Go binary built once per run, in a folder of its own (its build cache too).
const goDir = mkdtempSync(join(tmpdir(), 'webhook-go-'));
after(() => rmSync(goDir, { recursive: true, force: true }));
const goEnv = { GOCACHE: join(goDir, 'cache'), GOPATH: join(goDir, 'path'), GO111MODULE: 'off' };

const languages: { name: string; available: () => Promise<boolean>; command: () => [string, string[]] }[] = [
  { name: 'Node (verify.mjs)', available: async () => true, command: () => [process.execPath, ['verify.mjs']] },
  { name: 'Python (verify.py)', available: () => has('python3', ['--version']), command: () => ['python3', ['verify.py']] },
  { name: 'PHP (verify.php)', available: () => has('php', ['--version']), command: () => ['php', ['verify.php']] },
  {
    name: 'Go (verify.go)',
    available: async () => (await has('go', ['version'])) &&
      (await run('go', ['build', '-o', join(goDir, 'verify'), 'verify.go'], '', goEnv)).code === 0,
    command: () => [join(goDir, 'verify'), []],
  },
];

const SECRET = `whsec_${Buffer.from('the merchant webhook secret, 32B').toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.from('the previous webhook secret, 32B').toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.from('a secret nobody signed with, 32B').toString('base64')}`;
let notice: Notice;

before(async () => {
  // A real BFF on the sandbox, signing with two secrets (a rotation), its notice caught by a receiver.
  const received: Notice[] = [];
  const merchant = await serveOn(async (req) => {
    received.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
    return new Response(null, { status: 204 });
  });
  const fakeT = { after: (fn: () => unknown) => after(fn as () => void) } as unknown as Parameters<typeof startHarness>[0];
  after(() => merchant.close());
  const h = await startHarness(fakeT, {
    realClock: true,
    env: {
      ORDER_TICKET_SECRET: TEST_TICKET_SECRET,
      MERCHANT_WEBHOOK_URL: `${merchant.url}/webhooks`,
      MERCHANT_WEBHOOK_SECRET: `${SECRET} ${OLD_SECRET}`,
    },
    hooks: { resolveOrder: async () => ({ amount: '125000.00' }) },
  });
  const bill = await h.create({ orderId: 'order-1042', orderTicket: await h.ticket('order-1042') });
  h.sandbox.pay(bill.billId);
  await h.sandbox.idle();
  while (received.length === 0) await h.internals.noticeWorker.runOnce();
  notice = received[0]!;
  assert.equal(notice.headers['webhook-signature']!.split(' ').length, 2, 'one signature per secret');
});

function envOf(n: Notice, secret: string, now?: number): Record<string, string> {
  return {
    WEBHOOK_SECRET: secret,
    WEBHOOK_ID: n.headers['webhook-id']!,
    WEBHOOK_TIMESTAMP: n.headers['webhook-timestamp']!,
    WEBHOOK_SIGNATURE: n.headers['webhook-signature']!,
    ...(now === undefined ? {} : { WEBHOOK_NOW: String(now) }),
  };
}

// https://github.com/standard-webhooks/standard-webhooks, the specification's own example.
const VECTOR: Notice = {
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
  body: '{"test": 2432232314}',
};
const VECTOR_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('the webhook samples of docs/webhooks/', { concurrency: true }, () => {
  for (const language of languages) {
    test(language.name, async (t) => {
      if (!(await language.available())) return t.skip(`${language.name.split(' ')[0]} is not installed here (.ci/run installs it)`);
      const [command, args] = language.command();
      const check = (n: Notice, secret: string, now?: number) => run(command, args, n.body, envOf(n, secret, now));

      const ok = await check(notice, SECRET);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(ok.stdout.trim(), 'OK bill.final');
      const rotated = await check(notice, OLD_SECRET);
      assert.equal(rotated.code, 0, `the second signature verifies with the old secret: ${rotated.stderr}`);

      const tampered = await check({ ...notice, body: notice.body.replace('"paid"', '"PAID"') }, SECRET);
      assert.notEqual(notice.body.replace('"paid"', '"PAID"'), notice.body);
      assert.equal(tampered.code, 1);
      assert.match(tampered.stderr, /REJECTED: no valid signature/);
      assert.equal((await check(notice, OTHER_SECRET)).code, 1, 'another secret');
      const garbled = await check({ ...notice, headers: { ...notice.headers, 'webhook-signature': 'v1,é v2,x v1' } }, SECRET);
      assert.equal(garbled.code, 1, `a garbled header is refused, not a crash: ${garbled.stderr}`);
      assert.match(garbled.stderr, /REJECTED: no valid signature/);
      const late = await check(notice, SECRET, Number(notice.headers['webhook-timestamp']) + 301);
      assert.equal(late.code, 1, 'six minutes late');
      assert.match(late.stderr, /timestamp/);

      const vector = await check(VECTOR, VECTOR_SECRET, 1614265330);
      assert.equal(vector.code, 0, `the Standard Webhooks test vector: ${vector.stderr}`);
      assert.equal((await check({ ...VECTOR, body: '{"test": 2432232315}' }, VECTOR_SECRET, 1614265330)).code, 1);
    });
  }
});
