import { didYouMean } from '../domain/near-miss';
import { isJwtIssuerVariableName } from './jwt-issuers';
import { isProviderVariableName, providerVariable } from './oauth-providers';
import { OPTION_NAMES, SECRET_OPTIONS } from './options';

/** Command-line flags: `--kebab-case` for every option, and a warning for a secret given as one. */

/** Every option name (`_FILE` variants included), for `--kebab-case` flags and for telling typos apart. */
export const OPTIONS = OPTION_NAMES;

const flagOf = (name: string): string => `--${name.toLowerCase().replace(/_/g, '-')}`;

/** Reads `--kebab-case value` and `--kebab-case=value` flags into the matching UPPER_SNAKE names. */
export function flagsToEnv(argv: readonly string[]): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  const known = new Set<string>(OPTIONS);
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const m = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (m === null) {
      problems.push(`unexpected argument "${arg}"`);
      continue;
    }
    const name = m[1].toUpperCase().replace(/-/g, '_');
    if (!known.has(name) && !isProviderVariableName(name) && !isJwtIssuerVariableName(name)) {
      problems.push(`unknown option --${m[1]}${didYouMean(`--${m[1]}`, [...known].map(flagOf))}`);
      if (m[2] === undefined && i + 1 < argv.length && !argv[i + 1].startsWith('--')) i += 1;
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[(i += 1)];
      else value = 'true';
    }
    env[name] = value;
  }
  return { env, problems };
}

/** One warning per secret given as a `--flag` (a REDIS_URL only when it holds a password); never the value. */
export function secretFlagWarnings(argv: readonly string[]): string[] {
  const { env } = flagsToEnv(argv);
  const warnings: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    const withPassword = (name === 'REDIS_URL' || name === 'DATABASE_URL') && /^[^/]*\/\/[^/@]*:[^/@]*@/.test(value);
    const providerSecret = providerVariable(name)?.field === 'CLIENT_SECRET' && !name.endsWith('_FILE');
    if (!SECRET_OPTIONS.has(name) && !withPassword && !providerSecret) continue;
    const flag = `--${name.toLowerCase().replace(/_/g, '-')}`;
    warnings.push(
      `${flag} on the command line is visible to other users (ps) and stays in shell history: use ${flag}-file (${name}_FILE) or the ${name} environment variable`,
    );
  }
  return warnings;
}
