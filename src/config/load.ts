import { readFileSync } from 'node:fs';
import { readAccessTokens, type AccessTokensConfig } from './access-tokens';
import { readAdmin, type AdminConfig } from './admin';
import { envReader, type Env } from './env';
import { flagsToEnv } from './flags';
import { readJwtIssuers, type JwtIssuersSectionConfig } from './jwt-issuers';
import { readLdap, type LdapConfig } from './ldap';
import type { ConfigLibraries } from './libraries';
import { configuredProviders, providerNames, readOAuth, type OAuthSectionConfig } from './oauth';
import { CONFIGURING_PROVIDER_FIELDS, providerVariable } from './oauth-providers';
import { readOidc, type OidcSectionConfig } from './oidc';
import { CONFIGURING_OPTIONS } from './options';
import { readPasskeys, type PasskeysConfig } from './passkeys';
import { readRules, type RulesConfig } from './rules';
import { readServer, type ServerConfig } from './server';
import { readSessions, type SessionsConfig } from './sessions';
import { readState, type StateConfig } from './state';
import { readUi, type UiConfig } from './ui';
import { checkSomeWayToLogIn, readUsers, type UsersConfig } from './users';
import { USERS_OPTIONS } from './users';

/** Everything Portcullis reads from its environment, validated: the slices of every section. */
export type Config = {
  /** True when nothing was configured and a throwaway demo runs. */
  readonly demo: boolean;
} & ServerConfig &
  SessionsConfig &
  UsersConfig &
  LdapConfig &
  UiConfig &
  OAuthSectionConfig &
  PasskeysConfig &
  AccessTokensConfig &
  AdminConfig &
  StateConfig &
  RulesConfig &
  OidcSectionConfig &
  JwtIssuersSectionConfig;

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

export interface ConfigSources {
  readonly env: Env;
  readonly argv?: readonly string[];
  readonly readFile?: (path: string) => string;
}

/** Nothing configured (no option that configures, no provider variable that does): the throwaway demo runs. */
function isDemo(get: (name: string) => string | undefined, env: Env): boolean {
  return (
    CONFIGURING_OPTIONS.every((name) => get(name) === undefined) &&
    !Object.keys(env).some((name) => {
      const v = providerVariable(name);
      return v !== null && CONFIGURING_PROVIDER_FIELDS.has(v.field) && get(name) !== undefined;
    })
  );
}

/**
 * Parses and validates the configuration: runs every section in turn, each reading its options
 * and reporting its problems to one list, so one start-up attempt shows them all. Secrets never
 * appear in problem texts. `libraries` are what composition hands in (src/composition/config.ts).
 */
export function loadConfig(sources: ConfigSources, libraries: ConfigLibraries): ConfigResult {
  const flags = flagsToEnv(sources.argv ?? []);
  const r = envReader({ ...sources.env, ...flags.env }, sources.readFile ?? ((p: string) => readFileSync(p, 'utf8')), [...flags.problems]);
  const demo = isDemo(r.get, r.env);
  const server = readServer(r, demo, libraries);
  const sessions = readSessions(r, demo, server.appUrls);
  const users = readUsers(r, libraries.yaml);
  const oauth = readOAuth(r, server.appUrl);
  const ldap = readLdap(r, libraries);
  checkSomeWayToLogIn(r, demo, configuredProviders(oauth.oauth));
  const ui = readUi(r, {
    users: r.option(USERS_OPTIONS, 'USERS') !== undefined,
    usersFile: r.option(USERS_OPTIONS, 'USERS_FILE') !== undefined,
    ldap: ldap.ldap !== null,
    providers: providerNames(oauth.oauth),
  });
  const config: Config = {
    demo,
    ...server,
    ...sessions,
    ...users,
    ...ldap,
    ...ui,
    ...oauth,
    ...readPasskeys(r),
    ...readAccessTokens(r),
    ...readAdmin(r),
    ...readState(r),
    ...readRules(r, libraries.yaml),
    ...readOidc(r),
    ...readJwtIssuers(r),
  };
  return r.problems.length === 0 ? { ok: true, config } : { ok: false, problems: r.problems };
}
