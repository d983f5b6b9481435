// The element's declarations as `npm run build` makes them (tsconfig.build.json), seen from a
// merchant's DOM code and React 19 code (fixtures/widget/): what should type-check does, and each
// line marked `@ts-expect-error` is refused, for the reason it gives.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';

const root = new URL('../..', import.meta.url).pathname;
const fixtures = join(root, 'test/build/fixtures/widget');
const files = [join(fixtures, 'consumer.ts'), join(fixtures, 'react.tsx')];

let dir: string;
let options: ts.CompilerOptions;

function format(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' });
}

before(async () => {
  // Inside the repository, so that the declarations find lit and React in its node_modules.
  await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
  dir = await mkdtemp(join(root, 'node_modules/.cache/widget-types-'));
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.build.json'), { outDir: join(dir, 'types') }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(format([d])),
  })!;
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  assert.equal(problems.length, 0, format(problems));
  options = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.ReactJSX,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    // The package as installed: its name is its built declarations.
    paths: { 'bill-checkout': [join(dir, 'types/widget/index.d.ts')] },
  };
});

after(() => rm(dir, { recursive: true, force: true }));

// Type-checks the fixtures, their text changed by `edit`.
function check(edit: (text: string) => string = (text) => text): readonly ts.Diagnostic[] {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, readFile } = host;
  host.readFile = (file) => (files.includes(file) ? edit(readFile(file)!) : readFile(file));
  host.getSourceFile = (file, language, ...rest) => (files.includes(file)
    ? ts.createSourceFile(file, edit(ts.sys.readFile(file)!), language, true)
    : getSourceFile(file, language, ...rest));
  return ts.getPreEmitDiagnostics(ts.createProgram({ rootNames: files, options, host }));
}

test('a DOM consumer and a React 19 component type-check against the built declarations', () => {
  const problems = check();
  assert.equal(problems.length, 0, format(problems));
});

test('without their @ts-expect-error, exactly the marked lines fail: a wrong mode, a member a BillView lacks', () => {
  const marked = new Set<string>();
  for (const file of files) {
    ts.sys.readFile(file)!.split('\n').forEach((line, i) => {
      if (line.includes('@ts-expect-error')) marked.add(`${file}:${i + 2}`);
    });
  }
  assert.equal(marked.size, 4);
  const problems = check((text) => text.replaceAll('@ts-expect-error', 'expected error'));
  const failing = new Set(problems.map((d) => `${d.file?.fileName}:${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}`));
  assert.deepEqual([...failing].sort(), [...marked].sort(), format(problems));
  const messages = problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n');
  assert.match(messages, /"popup"/);
  assert.match(messages, /'nope' does not exist/);
});
