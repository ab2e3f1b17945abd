import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const SRC = resolve(__dirname, '../../src');

/** Frameworks and infrastructure libraries the inner layers must not know about (eslint.config.mjs keeps the same list). */
const INFRASTRUCTURE_PACKAGES = [
  'koa',
  '@koa/*',
  'koa-body',
  'co-body',
  'inversify',
  '@inversifyjs/*',
  'reflect-metadata',
  'otplib',
  '@otplib/*',
  'simple-oauth2',
  'class-validator',
  'ioredis',
  'pg',
  'ldapts',
  'pino',
  'prom-client',
  'bcrypt',
  'better-sqlite3',
  'pg',
];

/** Node modules that do I/O; pure domain rules have no business with them. */
const NODE_IO_MODULES = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'dns/promises',
  'tls',
  'child_process',
  'cluster',
  'worker_threads',
  'readline',
];

export interface LayerRules {
  /** Package names, `scope/*` for a whole scope. Subpaths (`koa/lib/x`) count as the package. */
  readonly packages: readonly string[];
  /** Directories (absolute) the layer must not reach into through relative imports. */
  readonly directories: readonly string[];
}

/**
 * src/cli holds the entry points (the commands, `serve`, `explain`): the outermost ring. Only
 * src/main.ts (the bin target) and src/cli itself import it.
 */
export const ENTRY_POINTS = join(SRC, 'cli');

export const APPLICATION_RULES: LayerRules = {
  packages: INFRASTRUCTURE_PACKAGES,
  // The configuration is read by composition and handed over as values; the application never imports it.
  directories: [join(SRC, 'adapters'), join(SRC, 'composition'), join(SRC, 'config'), ENTRY_POINTS],
};

/** Adapters and composition may use any package and the inner rings, but not the entry points. */
export const OUTER_RING_RULES: LayerRules = {
  packages: [],
  directories: [ENTRY_POINTS],
};

export const DOMAIN_RULES: LayerRules = {
  packages: [...INFRASTRUCTURE_PACKAGES, ...NODE_IO_MODULES, ...NODE_IO_MODULES.map((m) => `node:${m}`)],
  // The domain is the innermost ring: it does not depend on the application either.
  directories: [...APPLICATION_RULES.directories, join(SRC, 'application')],
};

/**
 * src/config reads and validates the environment with the domain alone: Node built-ins (files,
 * addresses) and yaml are fine, a framework, an infrastructure library, an adapter, the
 * application or composition are not (composition hands in what needs one, see ConfigLibraries).
 */
export const CONFIG_RULES: LayerRules = {
  packages: INFRASTRUCTURE_PACKAGES,
  directories: [join(SRC, 'adapters'), join(SRC, 'composition'), join(SRC, 'application')],
};

/** Every module specifier in a source text: static and type imports, re-exports, `require`, dynamic `import()`. */
export function importsOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

function packageMatches(specifier: string, pattern: string): boolean {
  if (pattern.endsWith('/*')) return specifier.startsWith(pattern.slice(0, -1));
  return specifier === pattern || specifier.startsWith(`${pattern}/`);
}

const isInside = (path: string, directory: string): boolean => path === directory || path.startsWith(directory + sep);

/** The imports of `file` (whose text is `source`) that break `rules`, as readable messages. */
export function importViolations(file: string, source: string, rules: LayerRules): string[] {
  const where = relative(resolve(SRC, '..'), file);
  const violations: string[] = [];
  for (const specifier of importsOf(source)) {
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(file), specifier);
      const directory = rules.directories.find((d) => isInside(target, d));
      if (directory !== undefined) violations.push(`${where} imports ${specifier} (inside ${relative(SRC, directory)}/)`);
    } else {
      const pattern = rules.packages.find((p) => packageMatches(specifier, p));
      if (pattern !== undefined) violations.push(`${where} imports ${specifier}`);
    }
  }
  return violations;
}

/** Every .ts file under `directory`, recursively. */
export function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(c|m)?tsx?$/.test(name) ? [path] : [];
  });
}
