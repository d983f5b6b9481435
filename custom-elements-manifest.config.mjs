// npx custom-elements-manifest analyze (run by scripts/build.mjs) → custom-elements.json.
export default {
  globs: ['widget/**/*.ts'],
  exclude: ['widget/**/*.d.ts'],
  outdir: '.',
  litelement: true,
  plugins: [
    {
      // Private reactive state (`_name`, `state: true`) is not an attribute, and the events are the
      // ones the class documents with @fires, not what the analyzer guesses from dispatchEvent calls.
      name: 'public-api-only',
      packageLinkPhase({ customElementsManifest }) {
        for (const mod of customElementsManifest.modules) {
          for (const declaration of mod.declarations ?? []) {
            if (!declaration.customElement) continue;
            declaration.attributes = declaration.attributes?.filter((a) => !a.name.startsWith('_'));
            declaration.events = declaration.events?.filter((e) => /^bill-/.test(e.name ?? ''));
          }
        }
      },
    },
  ],
};
