// The final minification of the element: which property names esbuild mangles, then a second pass
// by terser and the folding of template literals' line breaks.

// Property names no page code reads: `_name`, Lit's convention for internals (the element's state,
// its controllers' API, qrcode's internals once qrInternals has prefixed them). Not Lit's own `_$name`.
// CONTRIBUTING.md says what this means for the element's code.
export const mangleProps = /^_[A-Za-z]/;

// In minified output only template literals keep raw line breaks: fold them with their indentation.
const foldTemplates = (code) => code.replace(/>\n\s*/g, '>').replace(/\n\s*</g, '<').replace(/\n\s*/g, ' ');

/**
 * `code` (esbuild's minified bundle) minified once more by terser: two passes of its compressor,
 * and names given by how often they occur, which gzip compresses better (about 550 B gzip less than
 * esbuild alone). Export names and the `/*!` pointer to the license file stay.
 */
export async function minifyAgain(code) {
  const { minify } = await import('terser');
  const result = await minify(code, { module: true, ecma: 2022, compress: { passes: 2 }, format: { comments: 'some' } });
  return result.code;
}

/** esbuild's bundle of the element as it ships: minified once more (minifyAgain), template literals folded. */
export async function finishBundle(code) {
  return foldTemplates(await minifyAgain(code));
}
