/**
 * What an option row is: its parser, its value when unset, whether it holds a secret or a file
 * variant, the documentation group and row. Each section of src/config (server.ts, sessions.ts,
 * users.ts, ...) holds the rows of its options; options.ts puts them together in one table.
 */

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };
/** Turns a set, trimmed, non-empty raw value into a value or one problem naming the option (never the value). */
export type Parser<T> = (raw: string, name: string) => Parsed<T>;

/** Any text, as given (trimmed). */
export const text: Parser<string> = (raw) => ({ ok: true, value: raw });
/** Any text, lower-cased. */
export const lowercase: Parser<string> = (raw) => ({ ok: true, value: raw.toLowerCase() });
/** A comma- or space-separated list. */
export const list: Parser<readonly string[]> = (raw) => ({ ok: true, value: raw.split(/[\s,]+/).filter((s) => s !== '') });
export const boolean: Parser<boolean> = (raw, name) => {
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return { ok: true, value: true };
  if (['false', '0', 'no', 'off'].includes(v)) return { ok: true, value: false };
  return { ok: false, problem: `${name} must be true or false` };
};
export function integer(min: number, max: number): Parser<number> {
  return (raw, name) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max)
      return { ok: false, problem: `${name} must be a whole number from ${min} to ${max}` };
    return { ok: true, value: n };
  };
}
export function oneOf<const T extends string>(values: readonly T[]): Parser<T> {
  return (raw, name) => {
    const v = raw.toLowerCase();
    return (values as readonly string[]).includes(v) ? { ok: true, value: v as T } : { ok: false, problem: `${name} must be one of ${values.join(', ')}` };
  };
}

/** A row of the documentation tables: one option, or several that share it (`PORT` / `ADDRESS`). */
export interface RowDoc {
  /** The variable column when the names alone do not say it (defaults to the row's names, with `_FILE` variants). */
  readonly label?: string;
  readonly default: string;
  readonly meaning: string;
}

export type GroupId = (typeof OPTION_GROUPS)[number]['id'];

export interface OptionSpec {
  readonly group: GroupId;
  readonly parse: Parser<unknown>;
  /** The value when the option is unset (or invalid: the problem is reported, the fallback keeps parsing going). */
  readonly fallback: unknown;
  /** Also read from a file named by `<NAME>_FILE` (Docker and Kubernetes secrets). */
  readonly file?: true;
  /** The value is a secret: never echoed, and warned about when given as a command-line flag. */
  readonly secret?: true;
  /** Setting it means "this gateway is configured": the throwaway demo does not start. */
  readonly configures?: true;
  /** Its own documentation row, or the option whose row it shares. */
  readonly doc: RowDoc | { readonly sameRowAs: string };
}

/** Keeps a table of rows with its literal types (the value each option reads as). */
export function options<const T extends Record<string, OptionSpec>>(table: T): T {
  return table;
}

export const OPTION_GROUPS = [
  { id: 'gateway', title: 'The gateway', intro: '' },
  {
    id: 'oauth',
    title: 'OAuth providers',
    intro:
      "A provider is on when both its client id and secret are set. Setting only part of a provider's\noptions stops start-up with a message that names what is missing. How to register the gateway at\neach provider: [OAuth](oauth.md).",
  },
  {
    id: 'oidc',
    title: 'OpenID Connect provider',
    intro:
      'On when at least one client is configured (`OIDC_CLIENTS_<ID>_CLIENT_ID`): issuer = `APP_URL`, discovery at\n`${APP_URL}/.well-known/openid-configuration`. Behaviour, key rotation and per-app settings: [OpenID Connect](oidc.md).',
  },
  { id: 'rules', title: 'Access rules', intro: '' },
  {
    id: 'jwt',
    title: 'Workload identity (JWT)',
    intro:
      'Issuers of JWTs that machines present as `Authorization: Bearer <jwt>`, one per `<ID>`; none by default.\nHow they are checked and named: [Workload identity (JWT)](tokens.md#workload-identity-jwt).',
  },
  {
    id: 'ldap',
    title: 'LDAP',
    intro: 'Setting `LDAP_ADDRESS` enables the directory; how it is searched, bound and cached:\n[User stores](user-stores.md#ldap).',
  },
  { id: 'operations', title: 'Operations', intro: 'Redis, PostgreSQL, metrics and shutdown; see [Operations](operations.md).' },
] as const;
