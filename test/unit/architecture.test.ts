import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APPLICATION_RULES, CONFIG_RULES, DOMAIN_RULES, OUTER_RING_RULES, importViolations, importsOf, sourceFiles, SRC } from '../support/import-rules';

const checkLayer = (directory: string, rules: typeof DOMAIN_RULES): string[] =>
  sourceFiles(join(SRC, directory)).flatMap((file) => importViolations(file, readFileSync(file, 'utf8'), rules));

describe('architecture', () => {
  it('finds the source files it is meant to police', () => {
    expect(sourceFiles(join(SRC, 'domain')).length).toBeGreaterThanOrEqual(5);
    expect(sourceFiles(join(SRC, 'application')).length).toBeGreaterThanOrEqual(10);
    expect(sourceFiles(join(SRC, 'config')).length).toBeGreaterThanOrEqual(10);
  });

  it('keeps src/domain free of frameworks, infrastructure, Node I/O, adapters, composition, config and the application layer', () => {
    expect(checkLayer('domain', DOMAIN_RULES)).toEqual([]);
  });

  it('keeps src/application free of frameworks, infrastructure libraries, adapters, composition, config and the entry points', () => {
    expect(checkLayer('application', APPLICATION_RULES)).toEqual([]);
  });

  it('keeps src/config to the domain: no framework, infrastructure library, adapter, application or composition module', () => {
    expect(checkLayer('config', CONFIG_RULES)).toEqual([]);
  });

  it('keeps the entry points in src/cli out of reach of src/adapters and src/composition (only src/main.ts and src/cli import them)', () => {
    expect(sourceFiles(join(SRC, 'cli')).length).toBeGreaterThanOrEqual(5);
    expect(checkLayer('adapters', OUTER_RING_RULES)).toEqual([]);
    expect(checkLayer('composition', OUTER_RING_RULES)).toEqual([]);
  });

  describe('the checker itself', () => {
    const useCase = join(SRC, 'application', 'password', 'example.ts');
    const domainFile = join(SRC, 'domain', 'example.ts');

    it('sees static, type-only, side-effect, re-export, require and dynamic imports', () => {
      const source = [
        "import type { Context } from 'koa';",
        "import Router from '@koa/router';",
        "import 'reflect-metadata';",
        "export * from './local';",
        "const redis = require('ioredis');",
        "const later = () => import('pino');",
        "import fs = require('node:fs');",
      ].join('\n');
      expect(importsOf(source)).toEqual(['koa', '@koa/router', 'reflect-metadata', './local', 'ioredis', 'pino', 'node:fs']);
    });

    it('ignores module names that only appear in comments and strings', () => {
      expect(importsOf("// import Koa from 'koa';\n/** import('inversify') */\nconst s = `import x from 'otplib'`;")).toEqual([]);
    });

    it('flags every forbidden package in the application layer, including scopes and subpaths', () => {
      const forbidden = [
        'koa',
        '@koa/router',
        'koa-body',
        'inversify',
        '@inversifyjs/core',
        'reflect-metadata',
        'otplib',
        '@otplib/core',
        'simple-oauth2',
        'class-validator',
        'ioredis',
        'ldapts',
        'pino',
        'prom-client',
        'bcrypt',
        'koa/lib/application',
      ];
      for (const name of forbidden) {
        expect(importViolations(useCase, `import x from '${name}';`, APPLICATION_RULES)).toEqual([`src/application/password/example.ts imports ${name}`]);
      }
    });

    it('does not flag packages that merely share a prefix', () => {
      expect(importViolations(useCase, "import a from 'koa-compose-like'; import b from 'pinot'; import c from 'bcryptjs-types';", APPLICATION_RULES)).toEqual(
        [],
      );
    });

    it('flags relative imports into adapters or composition from any depth', () => {
      const source = [
        "import { createHttpApp } from '../../adapters/http/app';",
        "import { TOKENS } from '../../composition/tokens';",
        "import { x } from '../../adapters';",
      ].join('\n');
      expect(importViolations(useCase, source, APPLICATION_RULES)).toHaveLength(3);
      expect(importViolations(domainFile, "import { StaticUserStore } from '../adapters/users/static-user-store';", DOMAIN_RULES)).toHaveLength(1);
    });

    it('flags an import of the entry points from adapters, composition and the inner rings', () => {
      const adapter = join(SRC, 'adapters', 'http', 'example.ts');
      expect(importViolations(adapter, "import type { CliIo } from '../../cli/cli-io';", OUTER_RING_RULES)).toEqual([
        'src/adapters/http/example.ts imports ../../cli/cli-io (inside cli/)',
      ]);
      expect(importViolations(join(SRC, 'composition', 'example.ts'), "import { main } from '../cli/serve';", OUTER_RING_RULES)).toHaveLength(1);
      expect(importViolations(useCase, "import { explain } from '../../cli/explain';", APPLICATION_RULES)).toHaveLength(1);
      expect(importViolations(domainFile, "import { explain } from '../cli/explain';", DOMAIN_RULES)).toHaveLength(1);
      expect(importViolations(adapter, "import { reachableAt } from './first-app';\nimport ms from 'cli-table';", OUTER_RING_RULES)).toEqual([]);
    });

    it('lets the application import its own ports, services and the domain', () => {
      const source = "import type { Clock } from '../ports/clock';\nimport { ok } from '../../domain/result';\nimport { randomBytes } from 'node:crypto';";
      expect(importViolations(useCase, source, APPLICATION_RULES)).toEqual([]);
    });

    it('flags Node I/O modules and the application layer in the domain, but allows Buffer', () => {
      for (const name of ['node:fs', 'fs', 'node:net', 'http', 'node:https', 'node:child_process', 'fs/promises']) {
        expect(importViolations(domainFile, `import * as m from '${name}';`, DOMAIN_RULES)).toHaveLength(1);
      }
      expect(importViolations(domainFile, "import type { Clock } from '../application/ports/clock';", DOMAIN_RULES)).toHaveLength(1);
      expect(importViolations(domainFile, "export const b64 = (s: string) => Buffer.from(s).toString('base64');", DOMAIN_RULES)).toEqual([]);
    });

    it('lets src/config import the domain, itself, Node built-ins and yaml, and nothing further out', () => {
      const configFile = join(SRC, 'config', 'example.ts');
      const allowed = [
        "import { parseUsersList } from '../domain/users-list';",
        "import type { EnvReader } from './env';",
        "import { readFileSync } from 'node:fs';",
        "import { BlockList } from 'node:net';",
        "import type { Document } from 'yaml';",
      ].join('\n');
      expect(importViolations(configFile, allowed, CONFIG_RULES)).toEqual([]);
      const forbidden = [
        "import { ClientAddressResolver } from '../adapters/http/client-address';",
        "import type { Clock } from '../application/ports/clock';",
        "import { optionalModules } from '../composition/optional-modules';",
        "import { FilterParser } from 'ldapts';",
        "import Koa from 'koa';",
      ].join('\n');
      expect(importViolations(configFile, forbidden, CONFIG_RULES)).toEqual([
        'src/config/example.ts imports ../adapters/http/client-address (inside adapters/)',
        'src/config/example.ts imports ../application/ports/clock (inside application/)',
        'src/config/example.ts imports ../composition/optional-modules (inside composition/)',
        'src/config/example.ts imports ldapts',
        'src/config/example.ts imports koa',
      ]);
    });

    it('flags src/config in the domain and the application', () => {
      expect(importViolations(domainFile, "import type { Config } from '../config/load';", DOMAIN_RULES)).toHaveLength(1);
      expect(importViolations(useCase, "import type { Config } from '../../config/load';", APPLICATION_RULES)).toHaveLength(1);
    });

    it('fails the layer check for a planted bad file', () => {
      const planted = "import Koa from 'koa';\nimport { Container } from 'inversify';\nexport const app = new Koa();";
      expect(importViolations(join(SRC, 'domain', 'planted.ts'), planted, DOMAIN_RULES)).toEqual([
        'src/domain/planted.ts imports koa',
        'src/domain/planted.ts imports inversify',
      ]);
    });
  });
});
