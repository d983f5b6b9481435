// Widget tests in Chromium, WebKit and Firefox (test/engines). qrcode and axe-core are CommonJS: served pre-bundled as ES modules.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import * as esbuild from 'esbuild';
import { engineCommands } from './test/engines/commands.mjs';
import { engineLaunchers } from './test/engines/launchers.mjs';

const commonJs = {
  'qrcode/lib/core/qrcode.js': "export { create } from 'qrcode/lib/core/qrcode.js';",
  'axe-core': "import axe from 'axe-core'; export default axe;",
};

function commonJsPrebundle() {
  const bundles = new Map();
  const prefix = '/__commonjs__/';
  return {
    name: 'commonjs-prebundle',
    resolveImport({ source }) {
      if (source in commonJs) return `${prefix}${encodeURIComponent(source)}`;
      return undefined;
    },
    serve({ path }) {
      if (!path.startsWith(prefix)) return undefined;
      const name = decodeURIComponent(path.slice(prefix.length));
      if (!(name in commonJs)) return undefined;
      if (!bundles.has(name)) {
        bundles.set(name, esbuild.build({
          stdin: { contents: commonJs[name], resolveDir: process.cwd(), loader: 'js' },
          bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent',
        }).then((result) => result.outputFiles[0].text));
      }
      return bundles.get(name).then((body) => ({ body, type: 'js' }));
    },
  };
}

/**
 * Answers 404 for the paths that start with the `unavailable` cookie's value, as a deploy that lost a
 * file would: how a test makes a module fail to load in every engine (import maps cannot remap a
 * module after the first import in Firefox).
 */
function unavailableFiles(ctx, next) {
  const prefix = ctx.cookies.get('unavailable');
  if (prefix && ctx.path.startsWith(decodeURIComponent(prefix))) {
    ctx.status = 404;
    // Without Vary, Chromium answers the next test file's import of the module from this 404.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Vary', 'Cookie');
    return undefined;
  }
  return next();
}

export default {
  files: 'test/widget/**/*.test.ts',
  nodeResolve: { browser: true },
  // One file at a time in each engine, the three engines side by side (on 2 cores: 1 min 56 s, against
  // 3 min 20 s one engine after another; the tests run on fake clocks, so the load does not show in them).
  concurrency: 1,
  concurrentBrowsers: 3,
  // WebKit's launcher may replace a hung MiniBrowser before the page opens (test/engines/launchers.mjs).
  browserStartTimeout: 60_000,
  middleware: [unavailableFiles],
  testFramework: { config: { timeout: 10_000 } },
  plugins: [
    engineCommands(),
    commonJsPrebundle(),
    esbuildPlugin({ ts: true, target: 'auto', tsconfig: './tsconfig.json' }),
  ],
  browsers: engineLaunchers(),
};
