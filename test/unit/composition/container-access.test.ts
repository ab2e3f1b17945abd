import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { YamlFileAccessRulesSource } from '../../../src/adapters/rules/yaml-file-access-rules-source';
import { AllowAuthenticatedPolicy } from '../../../src/application/forward-auth/allow-authenticated-policy';
import { RulesAccessPolicy } from '../../../src/application/forward-auth/rules-access-policy';
import { loadConfig } from '../../../src/composition/config';
import type { Config } from '../../../src/config/load';
import { buildContainer } from '../../../src/composition/container';
import { TOKENS } from '../../../src/composition/tokens';
import { hashOf } from '../../support/credentials';

function config(env: Record<string, string> = {}): Config {
  const loaded = loadConfig({
    env: { APP_URL: 'https://auth.example.test', SECRET: 'x'.repeat(40), USERS: `alice:${hashOf('pw')}`, LOG_LEVEL: 'silent', ...env },
  });
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config;
}

describe('container: access policy', () => {
  it('binds the allow-authenticated policy without ACCESS_CONFIG', () => {
    const c = buildContainer(config());
    expect(c.get(TOKENS.AccessPolicy)).toBeInstanceOf(AllowAuthenticatedPolicy);
    expect(c.get(TOKENS.AccessRulesSource).version()).toBe(1);
  });

  it('binds the rules policy over the YAML file with ACCESS_CONFIG', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-container-'));
    try {
      writeFileSync(join(dir, 'a.yaml'), 'default_policy: deny\n');
      const c = buildContainer(config({ ACCESS_CONFIG: join(dir, 'a.yaml') }));
      expect(c.get(TOKENS.AccessPolicy)).toBeInstanceOf(RulesAccessPolicy);
      const source = c.get(TOKENS.AccessRulesSource);
      expect(source).toBeInstanceOf(YamlFileAccessRulesSource);
      expect(source.current().defaultPolicy).toBe('deny');
      source.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the rules file once: the container holds the rules the configuration loaded and validated', () => {
    // The file exists only for loadConfig's reader: a second read from disk would fail.
    const path = join(tmpdir(), 'portcullis-never-written', 'rules.yaml');
    const loaded = loadConfig({
      env: { APP_URL: 'https://auth.example.test', SECRET: 'x'.repeat(40), USERS: `alice:${hashOf('pw')}`, LOG_LEVEL: 'silent', ACCESS_CONFIG: path },
      readFile: (p) => (p === path ? 'default_policy: deny\n' : ''),
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('; '));
    const source = buildContainer(loaded.config).get(TOKENS.AccessRulesSource);
    expect(source.current().defaultPolicy).toBe('deny');
    source.close();
  });
});
