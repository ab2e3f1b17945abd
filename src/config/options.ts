import { ACCESS_TOKEN_OPTIONS } from './access-tokens';
import { ADMIN_OPTIONS } from './admin';
import { LDAP_OPTIONS } from './ldap';
import { OAUTH_OPTIONS } from './oauth';
import { OIDC_OPTIONS } from './oidc';
import type { GroupId, Parser } from './option-spec';
import { PASSKEY_OPTIONS } from './passkeys';
import { RULES_OPTIONS } from './rules';
import { LISTENER_OPTIONS, OPERATIONS_OPTIONS, PROXY_OPTIONS } from './server';
import { SECRET_OPTION, SESSION_OPTIONS } from './sessions';
import { DATA_DIR_OPTIONS, SHARED_STATE_OPTIONS } from './state';
import { UI_OPTIONS } from './ui';
import { USERS_OPTIONS } from './users';

/**
 * Every option of the gateway in one declarative table: its name (the key; the `--kebab-case` flag
 * and the `_FILE` variant derive from it), the group it is documented under, its parser and value
 * when unset, whether it holds a secret, and its documentation. It feeds `loadConfig` (parsing and
 * validation), `portcullis serve --help`, `config check`'s near-miss warnings, and the option tables
 * of docs/configuration.md (`npm run docs:options` regenerates them; a unit test fails when they
 * differ). Each section file of src/config holds its own rows and the rules that tie its options together
 * (a half-configured provider, LDAP_ options without LDAP_ADDRESS); every value is read through
 * this table (env.ts). Within a documentation group, rows appear in the order of this table.
 */
export const OPTION_TABLE = {
  ...LISTENER_OPTIONS,
  ...SECRET_OPTION,
  ...USERS_OPTIONS,
  ...SESSION_OPTIONS,
  ...UI_OPTIONS,
  ...PASSKEY_OPTIONS,
  ...ACCESS_TOKEN_OPTIONS,
  ...ADMIN_OPTIONS,
  ...PROXY_OPTIONS,
  ...DATA_DIR_OPTIONS,
  ...OAUTH_OPTIONS,
  ...OIDC_OPTIONS,
  ...RULES_OPTIONS,
  ...LDAP_OPTIONS,
  ...SHARED_STATE_OPTIONS,
  ...OPERATIONS_OPTIONS,
};

export type OptionName = keyof typeof OPTION_TABLE;
/** What an option reads as: its parser's value, or its fallback when unset. */
export type OptionValue<K extends OptionName> = (typeof OPTION_TABLE)[K] extends { parse: Parser<infer V>; fallback: infer F } ? V | F : never;

/** Every option name, `_FILE` variants included: what the environment and the `--flags` may set. */
export const OPTION_NAMES: readonly string[] = Object.entries(OPTION_TABLE).flatMap(([name, spec]) => ('file' in spec ? [name, `${name}_FILE`] : [name]));

/** The options whose value is a secret. */
export const SECRET_OPTIONS: ReadonlySet<string> = new Set(
  Object.entries(OPTION_TABLE)
    .filter(([, spec]) => 'secret' in spec)
    .map(([name]) => name),
);

/** The options (and their `_FILE` variants) of which any, when set, turns the demo off. */
export const CONFIGURING_OPTIONS: readonly string[] = Object.entries(OPTION_TABLE)
  .filter(([, spec]) => 'configures' in spec)
  .flatMap(([name, spec]) => ('file' in spec ? [name, `${name}_FILE`] : [name]));

/** The options of one group, in table order. */
export function optionsIn(group: GroupId): OptionName[] {
  return (Object.keys(OPTION_TABLE) as OptionName[]).filter((name) => OPTION_TABLE[name].group === group);
}
