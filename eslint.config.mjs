// ESLint (flat config) with typescript-eslint. `npm run lint` runs it; .ci/run runs it after the type-check.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * The layer rule of test/unit/architecture.test.ts (test/support/import-rules.ts), as the editor sees it:
 * dependencies point inward. Keep the two lists in step; test/unit/lint-boundaries.test.ts checks that
 * ESLint flags every package the architecture test forbids.
 */
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
  'ldapts',
  'pino',
  'prom-client',
  'bcrypt',
  'better-sqlite3',
  'pg',
];
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

/** A package and its subpaths (`koa`, `koa/lib/x`); a scope pattern (`@koa/*`) covers the scope's packages and their subpaths. */
const packagePatterns = (names) => names.flatMap((name) => [name, `${name}/**`]);

/** src/cli: the entry points (commands, `serve`, `explain`). Only src/main.ts and src/cli itself import them. */
const ENTRY_POINTS = ['**/cli', '**/cli/**'];

const OUTER_LAYERS = ['**/adapters', '**/adapters/**', '**/composition', '**/composition/**', ...ENTRY_POINTS];
/** src/config: read by composition and handed over as values, never imported by the domain or the application. */
const CONFIG_LAYER = ['**/config', '**/config/**'];
const APPLICATION_LAYER = ['**/application', '**/application/**'];

const layerRule = (message, packages, directories) => [
  'error',
  {
    patterns: [
      { group: packagePatterns(packages), message },
      { group: directories, message },
    ],
  },
];

export default tseslint.config(
  {
    ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'bench/tmp/**', '.e2e/**', 'docs/screenshots/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // An empty case with a comment above the next one groups outcomes on purpose (see credential-check.ts).
      'no-fallthrough': ['error', { allowEmptyCase: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    // CommonJS scripts (bench, scripts, jest configs) load their modules with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/composition/**/*.ts'],
    // Optional feature modules are loaded lazily with a typed require() in one place (optional-modules.ts, ADR 0015).
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: [
      'src/adapters/http/json-body.ts',
      'src/adapters/http/routes.ts',
      'src/adapters/http/user-agent.ts',
      'src/cli/commands/run-cli.ts',
      'src/cli/run-portcullis.ts',
    ],
    // koa-body and the login DTOs load with the first request body, inside the HTTP adapter that owns them;
    // the CLI's doctor, sessions and passkeys commands and its QR renderer with their command, and
    // run-portcullis.ts the gateway or a backup command only for the command run (ADR 0015).
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['ui/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['test/**', '**/*.test.ts'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': layerRule(
        'src/domain is the innermost ring: no framework, no Node I/O, no adapter, composition, config or application module',
        [...INFRASTRUCTURE_PACKAGES, ...NODE_IO_MODULES, ...NODE_IO_MODULES.map((m) => `node:${m}`)],
        [...OUTER_LAYERS, ...CONFIG_LAYER, ...APPLICATION_LAYER],
      ),
    },
  },
  {
    files: ['src/application/**/*.ts'],
    rules: {
      'no-restricted-imports': layerRule(
        'src/application knows ports and the domain only: no framework, infrastructure library, adapter, composition or config module',
        INFRASTRUCTURE_PACKAGES,
        [...OUTER_LAYERS, ...CONFIG_LAYER],
      ),
    },
  },
  {
    files: ['src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': layerRule(
        'src/config reads the environment with the domain alone (Node built-ins and yaml allowed): no framework, infrastructure library, adapter, application or composition module',
        INFRASTRUCTURE_PACKAGES,
        [...OUTER_LAYERS, ...APPLICATION_LAYER],
      ),
    },
  },
  {
    files: ['src/adapters/**/*.ts', 'src/composition/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ENTRY_POINTS, message: 'src/cli holds the entry points: only src/main.ts and src/cli import it' }] },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    // A function a reader can hold in their head, a constructor whose collaborators have names:
    // past these limits, split into named steps, or group related collaborators into a parts object
    // (as RequestAuthenticatorParts does).
    rules: {
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'max-params': ['error', { max: 8 }],
    },
  },
);
