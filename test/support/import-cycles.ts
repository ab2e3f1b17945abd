import { dirname, join, normalize } from 'node:path';
import { importsOf } from './import-rules';

/** Which files each file imports: keys and values are paths as given in the source map. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The file a relative specifier names among `files`: `x.ts`, `x.tsx`, `x/index.ts`; a `.js` suffix stands for the `.ts` file. */
function resolveSpecifier(from: string, specifier: string, files: ReadonlySet<string>): string | null {
  const base = normalize(join(dirname(from), specifier.replace(/\.js$/, '')));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  return candidates.find((c) => files.has(c)) ?? null;
}

/**
 * The import graph of `sources` (path -> text): every relative specifier (static, type-only,
 * re-export, `require`, dynamic `import()`) resolved to a file of the map. Packages and files
 * outside the map are left out: a cycle needs both ends in the map.
 */
export function importGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  const files = new Set(sources.keys());
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets = importsOf(text)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolveSpecifier(file, s, files))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components of `graph` that hold a cycle (two or more files, or a file importing itself), Tarjan's way. */
function cyclicComponents(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) components.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components;
}

/** One shortest cycle through `start` inside `members`, as a path that ends where it began. */
function cycleThrough(graph: ImportGraph, start: string, members: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start];
}

/**
 * Every import cycle of `graph`, one entry per group of files that import each other in a ring
 * (a strongly connected component): a shortest cycle through its first file, `a -> b -> a`, and
 * the other files of the group when there are more.
 */
export function importCycles(graph: ImportGraph): string[] {
  return cyclicComponents(graph).map((component) => {
    const cycle = cycleThrough(graph, component[0], new Set(component));
    const others = component.filter((f) => !cycle.includes(f));
    return cycle.join(' -> ') + (others.length > 0 ? ` (with ${others.join(', ')})` : '');
  });
}
