import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { contextFiles, ignored, parseDockerignore, readRepository, splitFlags, type Stage } from '../../scripts/dockerfile';

/**
 * No Docker engine runs here: these are the rules the one Dockerfile (at the repository root) must
 * keep, checked on its text, in the spirit of hadolint (not packaged for Debian or npm). The build
 * steps themselves run in CI without Docker: scripts/docker-free-build.js.
 */
const ROOT = join(__dirname, '..', '..');
const { stages, ignore } = readRepository(ROOT);
const final: Stage = stages[stages.length - 1];
const build: Stage = stages[0];
const args = (stage: Stage, keyword: string): string[] => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

describe('the Dockerfile', () => {
  it('is the only one in the repository (the examples build from it)', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        if (['node_modules', '.git', 'dist', 'coverage', '.e2e'].includes(entry.name)) continue;
        const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(rel);
        else if (/(^|\.)Dockerfile$|^Dockerfile\./.test(entry.name)) found.push(rel);
      }
    };
    walk('');
    expect(found).toEqual(['Dockerfile']);
    for (const compose of ['examples/docker-compose.yml', 'examples/docker-compose/compose.yaml']) {
      if (!existsSync(join(ROOT, compose))) continue;
      const text = readFileSync(join(ROOT, compose), 'utf8');
      // Every build: names the root as its context and the root Dockerfile.
      for (const m of text.matchAll(/build:\s*\n\s+context:\s*(\S+)\s*\n\s+dockerfile:\s*(\S+)/g)) {
        expect(join(dirname(join(ROOT, compose)), m[1])).toBe(ROOT);
        expect(m[2]).toBe('Dockerfile');
      }
      expect(text).not.toMatch(/dockerfile:\s*examples\//);
    }
  });

  it('is multi-stage: the final stage copies built files from the build stage and installs nothing itself', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(args(final, 'RUN')).toEqual([]);
    const copies = args(final, 'COPY');
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) expect(splitFlags(copy).flags.from).toBe(build.name);
    expect(copies.map((c) => splitFlags(c).rest.split(/\s+/)[0]).sort()).toEqual(
      ['/app/bin', '/app/data', '/app/dist', '/app/node_modules', '/app/package.json'].sort(),
    );
  });

  it('ships production dependencies only: node_modules is pruned of the dev dependencies after the build', () => {
    const runs = args(build, 'RUN').join(' && ');
    expect(runs).toMatch(/npm ci(?! --omit)/);
    expect(runs).toMatch(/npm run build\s*&&\s*npm prune --omit=dev/);
  });

  it('runs as a non-root user, by its own exec-form CMD (no shell between docker stop and the gateway)', () => {
    const users = args(final, 'USER');
    expect(users.length).toBe(1);
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/);
    const keywords = final.instructions.map((i) => i.keyword);
    expect(keywords.indexOf('USER')).toBeLessThan(keywords.indexOf('CMD'));
    expect(JSON.parse(args(final, 'CMD')[0])).toEqual(['node', 'bin/portcullis.js']);
    // The state directory is the only thing the runtime user owns.
    const owned = args(final, 'COPY').filter((c) => splitFlags(c).flags.chown !== undefined);
    expect(owned.map((c) => splitFlags(c).rest)).toEqual(['/app/data data']);
    expect(splitFlags(owned[0]).flags.chown).toBe(`${users[0]}:${users[0]}`);
    expect(args(final, 'VOLUME')).toEqual(['["/app/data"]']);
  });

  it('has a HEALTHCHECK on the liveness endpoint that needs only node (the image has no curl)', () => {
    const checks = args(final, 'HEALTHCHECK');
    expect(checks.length).toBe(1);
    const { rest } = splitFlags(checks[0]);
    const command = JSON.parse(rest.replace(/^CMD\s+/, '')) as string[];
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/api/healthcheck');
    expect(command.join(' ')).not.toMatch(/curl|wget/);
  });

  it('follows the hadolint rules that apply: pinned base image, apt without recommends and without lists, absolute WORKDIR, COPY not ADD, no COPY of the whole context', () => {
    for (const stage of stages) {
      // DL3006/DL3007: a tagged image, never latest.
      expect(stage.image).toMatch(/^[a-z0-9./-]+:[A-Za-z0-9._-]+$/);
      expect(stage.image).not.toMatch(/:latest$/);
      for (const ins of stage.instructions) {
        expect(ins.keyword).not.toBe('ADD'); // DL3020
        if (ins.keyword === 'WORKDIR') expect(ins.args).toMatch(/^\//); // DL3000
        if (ins.keyword === 'COPY') expect(splitFlags(ins.args).rest).not.toMatch(/^\.\s/); // no COPY . .
        if (ins.keyword === 'RUN' && /apt-get install/.test(ins.args)) {
          expect(ins.args).toMatch(/apt-get install -y --no-install-recommends/); // DL3014, DL3015
          expect(ins.args).toMatch(/rm -rf \/var\/lib\/apt\/lists\/\*/); // DL3009
        }
        if (ins.keyword === 'RUN') expect(ins.args).not.toMatch(/\bsudo\b|\bcd\s/); // DL3004, DL3003
      }
    }
    // DL3025: exec form.
    for (const cmd of args(final, 'CMD')) expect(() => JSON.parse(cmd)).not.toThrow();
  });

  it('uses the current LTS Node, the one CI runs the unit and contract suites on (scripts/ci-node-lts.sh reads the major from here)', () => {
    const major = /^node:(\d+)-/.exec(final.image)?.[1];
    expect(Number(major)).toBeGreaterThanOrEqual(26);
    expect(stages.every((s) => s.image === final.image)).toBe(true);
    // The shipped Node is one package.json's engines admits.
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((r) => r.trim())).toContain(`^${major}.0.0`);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toContain('scripts/ci-node-lts.sh');
  });

  it('copies only what exists in the build context (.dockerignore lets each COPY source through)', () => {
    const inContext = new Set(contextFiles(ROOT, ignore));
    for (const copy of args(build, 'COPY')) {
      const parts = splitFlags(copy).rest.split(/\s+/).slice(0, -1);
      for (const source of parts) {
        expect([...inContext].some((f) => f === source || f.startsWith(`${source}/`))).toBe(true);
      }
    }
  });
});

describe('.dockerignore', () => {
  const decoys = [
    'node_modules/koa/index.js',
    'dist/src/main.js',
    '.git/config',
    'data/portcullis.db',
    'secrets/portcullis',
    'secret.txt',
    '.env',
    'prod.env',
    'coverage/lcov.info',
    'bench/results.json',
    'test/unit/a.test.ts',
    'examples/caddy/Caddyfile',
    'src/node_modules/x.js',
    'src/.env',
    'src/local.env',
    'src/adapters/key.pem',
    'ui/dist/app.js',
  ];
  const wanted = ['package.json', 'package-lock.json', 'tsconfig.json', 'src/main.ts', 'src/adapters/http/routes.ts', 'ui/index.html', 'bin/portcullis.js'];

  it('keeps node_modules, dist, .git, data, secrets, *.env, coverage and tests out of the context, and lets the sources in', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-context-'));
    try {
      for (const file of [...decoys, ...wanted]) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), 'x');
      }
      expect(contextFiles(dir, ignore)).toEqual([...wanted].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is read with Docker semantics: a directory rule covers its contents, the last matching rule wins', () => {
    const rules = parseDockerignore('*\n!src/\n**/*.env\n');
    expect(ignored(rules, 'node_modules/a/b.js')).toBe(true);
    expect(ignored(rules, 'src/a/b.ts')).toBe(false);
    expect(ignored(rules, 'src/a/b.env')).toBe(true);
    expect(ignored(parseDockerignore('data\n'), 'data/x/y.db')).toBe(true);
  });
});
