import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');

/** Type-checks one file with the project's compiler options and returns the error texts. */
function compile(file: string): string[] {
  const configFile = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || d.file.fileName === program.getSourceFile(file)?.fileName)
    .map(
      (d) =>
        `${d.file === undefined ? '' : `line ${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: `}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('typed wiring', () => {
  it('makes a wrong token, a wrong dependency order or a wrong factory result a compile error', () => {
    // Each mistake in the file carries @ts-expect-error: one that compiled would leave an unused directive.
    expect(compile(join(ROOT, 'test', 'types', 'typed-wiring.ts'))).toEqual([]);
  }, 60_000);
});
