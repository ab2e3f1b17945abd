import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/composition/config';
import { flagsToEnv } from '../../../src/config/flags';
import { renderOptionsDoc, renderOptionsHelp, unknownOptionWarnings, withOptionsDoc } from '../../../src/config/option-docs';
import { OPTION_NAMES, OPTION_TABLE } from '../../../src/config/options';
import { runPortcullis } from '../../../src/cli/run-portcullis';
import type { CliIo } from '../../../src/cli/cli-io';

const CONFIGURATION = join(__dirname, '..', '..', '..', 'docs', 'configuration.md');

describe('the option table', () => {
  it('is what docs/configuration.md shows between the options markers (npm run docs:options regenerates it)', () => {
    const document = readFileSync(CONFIGURATION, 'utf8');
    expect(withOptionsDoc(document)).toBe(document);
  });

  it('documents every option and every group under the headings docs link to', () => {
    const block = renderOptionsDoc();
    for (const name of Object.keys(OPTION_TABLE)) expect(block).toContain(`\`${name}\``);
    expect(block.match(/^## .*$/gm)).toEqual([
      '## The gateway',
      '## OAuth providers',
      '## OpenID Connect provider',
      '## Access rules',
      '## Workload identity (JWT)',
      '## LDAP',
      '## Operations',
    ]);
  });

  it('lists every option, _FILE variants included, as a flag in serve --help', () => {
    const help = renderOptionsHelp();
    for (const name of OPTION_NAMES) expect(help).toContain(`--${name.toLowerCase().replace(/_/g, '-')}`);
  });

  it('accepts every option it lists as a --flag', () => {
    const { problems } = flagsToEnv(OPTION_NAMES.flatMap((name) => [`--${name.toLowerCase().replace(/_/g, '-')}`, 'x']));
    expect(problems).toEqual([]);
  });

  it("parses through the table: a value outside an option's range is one problem naming the option, not the value", () => {
    const result = loadConfig({ env: { PORT: '70000', LOG_LEVEL: 'loud', SESSION_EXPIRY: '5' } });
    expect(result.ok ? [] : result.problems).toEqual(
      expect.arrayContaining([
        'PORT must be a whole number from 0 to 65535',
        'LOG_LEVEL must be one of debug, info, warn, error, silent',
        'SESSION_EXPIRY must be a whole number from 60 to 31622400',
      ]),
    );
  });
});

describe('near-miss environment variables', () => {
  it('names the option a misspelt variable most likely meant', () => {
    expect(unknownOptionWarnings({ LDAP_ADRESS: 'ldap://x', APP_ULR: 'https://a', USERS_FIEL: '/f', SECRETS: 's' })).toEqual([
      'APP_ULR is not a Portcullis option and is ignored: did you mean APP_URL?',
      'LDAP_ADRESS is not a Portcullis option and is ignored: did you mean LDAP_ADDRESS?',
      'SECRETS is not a Portcullis option and is ignored: did you mean SECRET?',
      'USERS_FIEL is not a Portcullis option and is ignored: did you mean USERS_FILE?',
    ]);
  });

  it('warns about an unknown name with one of our prefixes, and never shows the value', () => {
    const warnings = unknownOptionWarnings({ PORTCULLIS_MODE: 'hunter2', OAUTH_PROVIDER: 'hunter2' });
    expect(warnings).toEqual([
      'OAUTH_PROVIDER is not a Portcullis option and is ignored (see portcullis serve --help)',
      'PORTCULLIS_MODE is not a Portcullis option and is ignored (see portcullis serve --help)',
    ]);
    expect(warnings.join('\n')).not.toContain('hunter2');
  });

  it('leaves known options and the usual system variables alone', () => {
    expect(
      unknownOptionWarnings({
        USERS: 'a',
        USER: 'me',
        PATH: '/bin',
        HOME: '/home/me',
        HOSTNAME: 'h',
        NODE_ENV: 'production',
        npm_config_cache: 'x',
        SECRET_FILE: '/s',
      }),
    ).toEqual([]);
  });

  it('know the PostgreSQL options, and warn about an unknown DATABASE_ name without its value', () => {
    expect(
      unknownOptionWarnings({
        DATABASE_URL: 'postgres://u:pw@db/x',
        DATABASE_URL_FILE: '/run/secrets/db',
        DATABASE_SSL: 'verify-full',
        DATABASE_CA_FILE: '/ca.pem',
      }),
    ).toEqual([]);
    const warnings = unknownOptionWarnings({ DATABASE_PASSWORD: 'hunter2' });
    expect(warnings).toEqual(['DATABASE_PASSWORD is not a Portcullis option and is ignored (see portcullis serve --help)']);
    expect(renderOptionsHelp()).toContain('--database-url, --database-url-file');
    expect(renderOptionsHelp()).toContain('--database-ssl');
  });

  it('are reported by config check', async () => {
    const out: string[] = [];
    const io: CliIo = {
      out: (s) => out.push(s),
      err: (s) => out.push(s),
      interactive: false,
      promptHidden: async () => '',
      readLines: async () => [],
      readFile: async () => '',
      writeSecretFile: async () => undefined,
      makePrivateDirectory: async () => undefined,
    };
    await runPortcullis(['config', 'check'], { APP_URL: 'https://auth.example.com', SECRET: 'k'.repeat(40), USERS_FIEL: '/etc/users' }, io);
    expect(out.join('')).toContain('portcullis: warning: USERS_FIEL is not a Portcullis option and is ignored: did you mean USERS_FILE?');
  });
});
