// Widget tests in Debian's Chromium. qrcode and axe-core are CommonJS: served pre-bundled as ES modules.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import * as esbuild from 'esbuild';

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

export default {
  files: 'test/widget/**/*.test.ts',
  nodeResolve: { browser: true },
  concurrency: 1,
  testFramework: { config: { timeout: 10_000 } },
  plugins: [
    commonJsPrebundle(),
    esbuildPlugin({ ts: true, target: 'auto', tsconfig: './tsconfig.json' }),
  ],
  browsers: [chromeLauncher({
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  })],
};
