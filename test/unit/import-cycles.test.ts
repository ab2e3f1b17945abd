import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { importCycles, importGraph } from '../support/import-cycles';
import { sourceFiles, SRC } from '../support/import-rules';

const ROOT = resolve(SRC, '..');

/** src/ as a map of repository-relative path to source text. */
function sources(): Map<string, string> {
  return new Map(sourceFiles(SRC).map((file) => [relative(ROOT, file), readFileSync(file, 'utf8')]));
}

describe('import cycles', () => {
  it('src/ has none: no group of modules imports itself around a ring (type-only imports, re-exports and lazy requires count)', () => {
    const cycles = importCycles(importGraph(sources()));
    expect(cycles).toEqual([]);
  });

  describe('the checker itself', () => {
    it('finds a planted cycle through a type-only import, a re-export and an index file', () => {
      const planted = new Map([
        ['src/a/one.ts', "import type { Two } from './two';\nexport type One = Two;"],
        ['src/a/two.ts', "export * from '../b';"],
        ['src/b/index.ts', "import { one } from '../a/one.js';\nexport const three = one;"],
        ['src/c.ts', "import { three } from './b';\nimport Koa from 'koa';"],
      ]);
      expect(importGraph(planted).get('src/a/two.ts')).toEqual(['src/b/index.ts']);
      expect(importCycles(importGraph(planted))).toEqual(['src/a/one.ts -> src/a/two.ts -> src/b/index.ts -> src/a/one.ts']);
    });

    it('finds every separate cycle, a lazy require and a file importing itself included', () => {
      const planted = new Map([
        ['src/x.ts', "export const x = () => require('./y');"],
        ['src/y.ts', "import { x } from './x';"],
        ['src/self.ts', "import { self } from './self';"],
        ['src/z.ts', "import { x } from './x';"],
      ]);
      expect(importCycles(importGraph(planted))).toEqual(['src/self.ts -> src/self.ts', 'src/x.ts -> src/y.ts -> src/x.ts']);
    });

    it('names the other files of a group that shares more than one ring', () => {
      const planted = new Map([
        ['src/a.ts', "import './b';\nimport './c';"],
        ['src/b.ts', "import './a';"],
        ['src/c.ts', "import './a';"],
      ]);
      expect(importCycles(importGraph(planted))).toEqual(['src/a.ts -> src/b.ts -> src/a.ts (with src/c.ts)']);
    });

    it('finds nothing in an acyclic graph, nor in comments or strings', () => {
      const planted = new Map([
        ['src/a.ts', "import { b } from './b';\n// import './a';"],
        ['src/b.ts', 'const s = "import { a } from \'./a\'";'],
      ]);
      expect(importCycles(importGraph(planted))).toEqual([]);
    });
  });
});
