// The import directions of the layout are lint rules (eslint.config.js): each forbidden import
// below is refused, and each allowed one passes, so a rule cannot quietly stop applying.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function refused(file: string, specifier: string): Promise<boolean> {
  const [result] = await eslint.lintText(`import '${specifier}';\n`, { filePath: file });
  return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
}

const cases: [file: string, specifier: string, allowed: boolean][] = [
  ['contract/x.ts', '../server/app.js', false],
  ['contract/x.ts', '../widget/bill-checkout.js', false],
  ['contract/x.ts', './decimal.js', true],
  ['widget/x.ts', '../server/app.js', false],
  ['widget/x.ts', '../sandbox/sandbox.js', false],
  ['widget/x.ts', 'node:fs', false],
  ['widget/x.ts', '../contract/bill-view.js', true],
  ['widget/controllers/x.ts', '../../server/config.js', false],
  ['sandbox/x.ts', '../server/config.js', false],
  ['sandbox/x.ts', '../contract/decimal.js', true],
  ['server/app.ts', '../sandbox/sandbox.js', false],
  ['server/config.ts', '../sandbox/credentials.js', false],
  ['server/main.ts', '../sandbox/sandbox.js', true],
  ['server/process/serve.ts', '../../sandbox/sandbox.js', true],
  ['server/process/static-files.ts', 'node:fs', true],
  ['server/platform/node/runtime.ts', '../../../sandbox/sandbox.js', false],
  ['server/x.ts', '../demo/server/index.js', false],
  ['server/x.ts', './testing.js', false],
  ['server/http/routes/x.ts', '../../testing.js', false],
  ['demo/server/x.ts', '../../server/testing.js', false],
  ['demo/server/x.ts', '../../server/index.js', true],
  ['demo/server/x.ts', '../../server/domain/orders/order-ticket.js', false],
  ['demo/server/x.ts', '../../widget/bill-checkout.js', false],
  ['demo/server/x.ts', './catalogue.js', true],
  ['server/platform/bun/runtime.ts', 'node:crypto', true],
  ['server/platform/deno/runtime.ts', '../../http/sse/sse-transport.js', true],
  ['server/store/sqlite/driver.ts', 'node:module', true],
  ['server/app.ts', '../widget/bill-view.js', false],
  ['server/app.ts', 'node:fs', false],
  ['server/main.ts', 'node:fs', true],
  ['server/render.ts', './http/render/checkout.js', true],
  ['server/render.ts', './domain/orders/order-ticket.js', true],
  ['server/render.ts', './store/open-store.js', false],
  ['server/render.ts', './app.js', false],
  ['server/render.ts', 'node:crypto', false],
  ['server/store/x.ts', 'hono', false],
  ['server/store/x.ts', '../http/json-errors.js', false],
  ['server/store/sqlite/wal-sync.ts', 'node:fs', true],
  ['server/store/postgres/store.ts', 'node:fs', false],
  // The stores' concerns (server/store/sqlite/, server/store/postgres/) are storage like the rest.
  ['server/store/sqlite/bills.ts', 'hono', false],
  ['server/store/sqlite/bills.ts', '../../domain/errors.js', false],
  ['server/store/sqlite/bills.ts', 'node:fs', false],
  ['server/store/postgres/notices.ts', '../../http/json-errors.js', false],
  ['server/store/postgres/notices.ts', 'node:fs', false],
  ['server/store/postgres/notices.ts', '../rows.js', true],
  ['server/upstream/x.ts', '../config.js', false],
  ['server/upstream/x.ts', '../store/types.js', false],
  ['server/upstream/x.ts', '../redact.js', true],
  ['server/domain/create/x.ts', '../../http/json-errors.js', false],
  ['server/domain/create/x.ts', 'hono', false],
  ['server/domain/create/x.ts', '../errors.js', true],
  ['server/http/routes/x.ts', '../../domain/errors.js', true],
  ['server/http/routes/x.ts', '../../store/types.js', true],
  ['server/http/routes/x.ts', '../../store/errors.js', true],
  ['server/http/routes/x.ts', '../../store/open-store.js', false],
  ['server/http/routes/x.ts', '../../store/sqlite/store.js', false],
  ['server/http/routes/bills.ts', '../../store/types.js', false],
  ['server/http/routes/bills.ts', '../../upstream/errors.js', false],
  ['server/http/routes/bills.ts', '../../domain/status/cancel-bill.js', true],
  ['server/http/routes/x.ts', '../../../widget/card/card.js', false],
  ['server/http/render/x.ts', '../../../widget/card/card.js', true],
  ['server/http/render/x.ts', '../../../widget/card/styles.js', true],
  ['server/http/render/x.ts', '../../../widget/qr-code.js', true],
  ['server/http/render/x.ts', '../../../widget/strings.js', true],
  ['server/http/render/x.ts', '../../../widget/bill-checkout.js', false],
  ['server/http/render/x.ts', '../../../widget/styles.js', false],
  ['server/http/render/x.ts', '../../../demo/shop.js', false],
  ['server/http/render/x.ts', 'node:zlib', false],
  ['server/http/render/x.ts', '../../../admin/strings.js', false],
  ['server/process/static-files.ts', '../../admin/main.js', false],
  ['contract/x.ts', '../admin/api.js', false],
  ['widget/x.ts', '../admin/dom.js', false],
  ['sandbox/x.ts', '../admin/api.js', false],
  ['admin/x.ts', '../contract/admin.js', true],
  ['admin/x.ts', '../contract/languages.js', true],
  // What the pages, the sandbox and the servers share has one home in contract/.
  ['admin/x.ts', '../contract/page-language.js', true],
  ['demo/x.ts', '../contract/page-language.js', true],
  ['demo/server/x.ts', '../../contract/text-parts.js', true],
  ['demo/server/x.ts', '../../contract/escape-html.js', true],
  ['sandbox/x.ts', '../contract/escape-html.js', true],
  ['server/http/x.ts', '../../contract/escape-html.js', true],
  ['server/http/render/x.ts', '../../../contract/escape-html.js', true],
  ['admin/x.ts', './strings.js', true],
  ['admin/x.ts', '../demo/page-language.js', false],
  ['admin/x.ts', '../demo/server/demo-strings.js', false],
  ['admin/x.ts', '../server/http/api-schemas.js', false],
  ['admin/x.ts', '../widget/format.js', false],
  ['admin/x.ts', '../sandbox/sandbox.js', false],
  ['admin/x.ts', 'node:fs', false],
  ['admin/vite.config.ts', 'node:url', true],
  ['admin/vite.config.ts', '../demo/server/catalogue.js', false],
  ['demo/x.ts', '../admin/strings.js', false],
  ['demo/x.ts', '../sandbox/sandbox.js', false],
  ['demo/x.ts', '../widget/bill-checkout.js', true],
  ['demo/x.ts', './server/demo-strings.js', true],
  ['demo/server/x.ts', '../../admin/strings.js', false],
];

test('the layout\'s import directions are enforced by lint rules', async () => {
  for (const [file, specifier, allowed] of cases) {
    assert.equal(await refused(file, specifier), !allowed, `${file} importing ${specifier} should be ${allowed ? 'allowed' : 'refused'}`);
  }
});
