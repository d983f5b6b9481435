// npx custom-elements-manifest analyze (run by scripts/build.mjs) → custom-elements.json.
import { posix } from 'node:path';

export default {
  // The element's modules, and the contract whose types they export.
  globs: ['widget/**/*.ts', 'contract/bill-view.ts'],
  // The languages are data the element loads on demand, not its API.
  exclude: ['widget/**/*.d.ts', 'widget/locales/**'],
  outdir: '.',
  // package.json names custom-elements.json itself; an analysis into another outdir (the manifest
  // test's) must not rewrite it.
  packagejson: false,
  litelement: true,
  plugins: [
    {
      // Private reactive state (`_name`, `state: true`) is not an attribute, a `_` member is the
      // bundle's own (the build shortens it: CONTRIBUTING, the `_` prefix) whatever TypeScript's
      // modifier, and the events are the ones the class documents with @fires, not what the
      // analyzer guesses from dispatchEvent calls.
      name: 'public-api-only',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            if (!declaration.customElement) continue;
            declaration.attributes = declaration.attributes?.filter((a) => !a.name.startsWith('_'));
            for (const member of declaration.members ?? []) if (member.name.startsWith('_')) member.privacy = 'private';
            declaration.events = declaration.events?.filter((e) => /^bill-/.test(e.name ?? ''));
          }
        }
      },
    },
    {
      // The analyzer writes references as the import specifiers say them (`./events.js`, or
      // `/widget/bill-checkout.js` after resolving one): make each the path of a listed module.
      name: 'module-paths',
      packageLinkPhase({ customElementsManifest }) {
        const paths = new Set(customElementsManifest.modules.map((mod) => mod.path));
        const resolve = (from, specifier) => {
          const path = posix.normalize(specifier.startsWith('.') ? posix.join(posix.dirname(from), specifier) : specifier).replace(/^\/+/, '');
          const source = path.replace(/\.js$/, '.ts');
          return paths.has(source) ? source : path;
        };
        const visit = (node, from) => {
          if (Array.isArray(node)) return node.forEach((item) => visit(item, from));
          if (node !== Object(node)) return;
          if (typeof node.module === 'string') node.module = resolve(from, node.module);
          for (const value of Object.values(node)) visit(value, from);
        };
        for (const mod of customElementsManifest.modules) {
          visit(mod.declarations, mod.path);
          visit(mod.exports, mod.path);
        }
      },
    },
  ],
};
