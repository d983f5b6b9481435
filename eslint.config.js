import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The import directions of the layout (../shared/DESIGN.md, "Layout"), one entry per folder: the
// folders it may not import, as regular expressions over the import specifier.
const FOLDER = (name) => `(^|/)${name}/`;
const node = { regex: '^node:', message: 'Only the process entry (server/main.ts, server/process), the runtime adapters (server/platform) and the SQLite store use node:* modules.' };
const layers = {
  'contract/**': [
    { regex: FOLDER('(widget|server|sandbox|demo|admin)'), message: 'contract/ is the wire contract both sides share: it imports nothing but itself.' },
    node,
  ],
  'widget/**': [
    { regex: FOLDER('(server|sandbox|demo|admin)'), message: 'The element runs in the browser: it imports only contract/ and its own files.' },
    node,
  ],
  'react/**': [
    { regex: FOLDER('(server|sandbox|demo|admin)'), message: "bill-checkout/react wraps the element: it imports React, the element's package and the element's types only." },
    node,
  ],
  'sandbox/**': [
    { regex: FOLDER('(server|widget|demo|admin)'), message: 'The sandbox is the service simulated: it imports only contract/.' },
  ],
  'server/**': [
    { regex: FOLDER('(widget|demo|admin)'), message: 'The server imports the wire contract from contract/, never the element, the admin page or the demo: it serves their built files.' },
    { regex: FOLDER('sandbox'), message: 'Only the process entry (server/main.ts, server/process) mounts the sandbox.' },
    { regex: '(^|/)testing\\.js$', message: "server/testing.ts reaches an app's internals for tests and benches: no product code imports it." },
    node,
  ],
  'server/store/**': [
    { regex: `^(hono|@hono/)|${FOLDER('(http|domain)')}`, message: 'Storage knows no HTTP and no domain logic.' },
  ],
  'server/upstream/**': [
    { regex: `${FOLDER('(store|http|domain)')}|(^|/)config\\.js$`, message: 'The upstream client knows no storage, no HTTP routes and no configuration loader: it is given its options.' },
  ],
  'admin/**': [
    { regex: FOLDER('(server|widget|sandbox|demo)'), message: "The admin page runs in the browser over the BFF's admin API: it imports only contract/ and its own files." },
    node,
  ],
  // Before demo/server/**, which adds its own to these.
  'demo/**': [
    { regex: FOLDER('(admin|sandbox)'), message: "The demo is a merchant's pages: it uses the element (widget/) and contract/, never the product's admin page or the sandbox." },
  ],
  'demo/server/**': [
    { regex: `${FOLDER('server')}(?!index\\.js$)|${FOLDER('(widget|sandbox)')}`, message: "The demo's server part is a merchant's own code: it uses bill-checkout/server's public entry (server/index.ts), nothing inside it." },
  ],
  // A route parses, calls the domain and answers: storage only through the typed concerns it is given.
  'server/http/routes/**': [
    { regex: `${FOLDER('store')}(?!(types|errors)\\.js$)`, message: "A route reaches storage through the store concerns in Services and the domain's functions, never a store module." },
  ],
  'server/domain/**': [
    { regex: `^(hono|@hono/)|${FOLDER('http')}`, message: 'The domain knows no HTTP: it throws CheckoutError, which http/ maps to a status.' },
  ],
};
// The process entry may use node:* and mount the sandbox; the runtimes' adapters may use node:*.
const entry = ['server/main.ts', 'server/process/**'];
const platform = ['server/platform/**'];
// SQLite's file-level parts (the driver, the WAL sync and checkpoints off the event loop) touch the file system.
const nodeStore = ['server/store/sqlite/{driver,wal-sync,checkpointer,checkpoint-worker}.ts', 'server/store/open-store.ts'];

function restrictions(file) {
  const rules = [];
  for (const [glob, patterns] of Object.entries(layers)) {
    const prefix = glob.replace('/**', '/');
    if (file.startsWith(prefix)) rules.push(...patterns);
  }
  return rules;
}

const layerConfigs = Object.keys(layers).map((glob) => {
  const patterns = restrictions(glob.replace('/**', '/x.ts'));
  return { files: [`${glob.replace('/**', '')}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
});
const withoutNode = (patterns) => patterns.filter((p) => p !== node);
const exemptions = [
  // The process entry: node:* and the sandbox. The runtimes' adapters: node:*.
  { files: entry, rules: { 'no-restricted-imports': ['error', { patterns: withoutNode(restrictions('server/x.ts')).filter((p) => !p.regex.includes('sandbox')) }] } },
  { files: platform, rules: { 'no-restricted-imports': ['error', { patterns: withoutNode(restrictions('server/x.ts')) }] } },
  { files: nodeStore, rules: { 'no-restricted-imports': ['error', { patterns: withoutNode(restrictions('server/store/x.ts')) }] } },
  // The customer's routes are one call each: create, read, watch and cancel live in server/domain/ and http/sse/.
  { files: ['server/http/routes/bills.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [...restrictions('server/http/routes/x.ts'), { regex: FOLDER('(store|upstream)'), message: "The bills routes call the domain (server/domain/) and the SSE watch (http/sse/watch-bill.ts): they import no store and no upstream client." }] }] } },
  { files: ['sandbox/main.ts'], rules: { 'no-restricted-imports': ['error', { patterns: restrictions('sandbox/x.ts') }] } },
  // The admin page's build configuration runs in Node.
  { files: ['admin/vite.config.ts'], rules: { 'no-restricted-imports': ['error', { patterns: withoutNode(restrictions('admin/x.ts')) }] } },
  // The server's rendering draws the element's own card: its templates and CSS, its QR encoder
  // (bundled for dist/server at build time), its URL check and its texts. Nothing else of the element.
  // bill-checkout/server/render: rendering and order tickets, nothing that opens a store or calls the service.
  { files: ['server/render.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [...restrictions('server/x.ts'), { regex: '^\\./(?!(http/render|domain/orders)/)', message: 'server/render.ts (bill-checkout/server/render) exports rendering and order tickets only: no store, no upstream client, no configuration.' }] }] } },
  { files: ['server/http/render/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: restrictions('server/http/x.ts').map((p) => (p.regex === FOLDER('(widget|demo|admin)') ? { ...p, regex: `${FOLDER('(demo|admin)')}|${FOLDER('widget')}(?!(card/card|card/styles|qr-code|safe-url|strings)\\.js$)` } : p)) }] } },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'docs/**', 'custom-elements.json', 'demo/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly',
        performance: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  // CommonJS: qrcode's modules the widget's build replaces (scripts/build/qr-mask-pattern.cjs).
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  ...layerConfigs,
  ...exemptions,
);
