import { OPTION_NAMES, OPTION_TABLE, optionsIn, type OptionName } from './options';
import { isProviderVariableName, OAUTH_PROVIDER_FIELDS, OAUTH_PROVIDER_PREFIX, type OAuthProviderField, type PatternFieldSpec } from './oauth-providers';
import { OPTION_GROUPS, type RowDoc } from './option-spec';
import { nearMiss } from '../domain/near-miss';
import { isOidcClientVariableName, OIDC_CLIENT_DOCS, OIDC_CLIENT_FIELDS, OIDC_CLIENT_PREFIX, type OidcClientField } from './oidc';
import { isJwtIssuerVariableName, JWT_ISSUER_FIELDS, JWT_ISSUER_PREFIX, type JwtIssuerField } from './jwt-issuers';

export const OPTIONS_BEGIN = '<!-- options:begin -->';
export const OPTIONS_END = '<!-- options:end -->';

interface Row {
  /** The flags' names (`OAUTH_PROVIDERS_<ID>_NAME` for a pattern), and whether each has a `_FILE` variant. */
  readonly names: readonly { readonly name: string; readonly file: boolean }[];
  readonly label: string;
  readonly doc: RowDoc;
}

/** The rows of the provider pattern (`OAUTH_PROVIDERS_<ID>_…`), documented with the OAuth group. */
function patternRows(): Row[] {
  const fields = Object.entries(OAUTH_PROVIDER_FIELDS) as [OAuthProviderField, PatternFieldSpec][];
  const rows: Row[] = [];
  for (const [field, spec] of fields) {
    if ('sameRowAs' in spec.doc) continue;
    const members = [field, ...fields.filter(([, other]) => 'sameRowAs' in other.doc && other.doc.sameRowAs === field).map(([f]) => f)];
    const names = members.map((m) => ({ name: `${OAUTH_PROVIDER_PREFIX}<ID>_${m}`, file: (OAUTH_PROVIDER_FIELDS[m] as PatternFieldSpec).file === true }));
    rows.push({ names, label: spec.doc.label ?? names.map((n) => `\`${n.name}\``).join(' / '), doc: spec.doc });
  }
  return rows;
}

/** The rows of the client pattern (`OIDC_CLIENTS_<ID>_…`), documented with the OpenID Connect group. */
const hasFileForm = (f: OidcClientField): boolean => (OIDC_CLIENT_FIELDS[f] as { file?: true }).file === true;
const OIDC_CLIENT_ROWS: Row[] = OIDC_CLIENT_DOCS.map(({ fields, doc }) => ({
  names: fields.map((f) => ({ name: `${OIDC_CLIENT_PREFIX}<ID>_${f}`, file: hasFileForm(f) })),
  label: fields.map((f) => `\`${OIDC_CLIENT_PREFIX}<ID>_${f}\`${hasFileForm(f) ? ` / \`${OIDC_CLIENT_PREFIX}<ID>_${f}_FILE\`` : ''}`).join(', '),
  doc,
}));

/** The rows of the issuer pattern (`JWT_ISSUERS_<ID>_…`), documented with the workload identity group. */
const JWT_ISSUER_ROWS: Row[] = (Object.keys(JWT_ISSUER_FIELDS) as JwtIssuerField[]).map((field) => ({
  names: [{ name: `${JWT_ISSUER_PREFIX}<ID>_${field}`, file: false }],
  label: `\`${JWT_ISSUER_PREFIX}<ID>_${field}\``,
  doc: JWT_ISSUER_FIELDS[field].doc,
}));

/** The option whose documentation row `name` shares, or null when it has its own. */
function sharedRowOf(name: OptionName): string | null {
  const doc: RowDoc | { readonly sameRowAs: string } = OPTION_TABLE[name].doc;
  return 'sameRowAs' in doc ? doc.sameRowAs : null;
}

/** The documentation rows of a group: an option with its own row, plus the options that share it. */
function rowsOf(group: (typeof OPTION_GROUPS)[number]['id']): Row[] {
  const names = optionsIn(group);
  const rows: Row[] = [];
  for (const name of names) {
    const doc: RowDoc | { readonly sameRowAs: string } = OPTION_TABLE[name].doc;
    if ('sameRowAs' in doc) continue;
    const members = [name, ...names.filter((other) => sharedRowOf(other) === name)];
    const label = doc.label ?? members.map((m) => `\`${m}\`${'file' in OPTION_TABLE[m] ? ` / \`${m}_FILE\`` : ''}`).join(' / ');
    rows.push({ names: members.map((m) => ({ name: m, file: 'file' in OPTION_TABLE[m] })), label, doc });
  }
  if (group === 'oauth') rows.push(...patternRows());
  if (group === 'oidc') rows.push(...OIDC_CLIENT_ROWS);
  if (group === 'jwt') rows.push(...JWT_ISSUER_ROWS);
  return rows;
}

/** The part of docs/configuration.md between the options markers, markers included. */
export function renderOptionsDoc(): string {
  const sections = OPTION_GROUPS.map((group) => {
    const rows = rowsOf(group.id).map((row) => `| ${row.label} | ${row.doc.default} | ${row.doc.meaning} |`);
    return [`## ${group.title}`, '', ...(group.intro === '' ? [] : [group.intro, '']), '| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
  });
  return `${OPTIONS_BEGIN}\n${sections.join('\n\n')}\n${OPTIONS_END}`;
}

/** `document` with its options block replaced by the generated one. */
export function withOptionsDoc(document: string): string {
  const begin = document.indexOf(OPTIONS_BEGIN);
  const end = document.indexOf(OPTIONS_END);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${OPTIONS_BEGIN} … ${OPTIONS_END} block`);
  return `${document.slice(0, begin)}${renderOptionsDoc()}${document.slice(end + OPTIONS_END.length)}`;
}

/** Markdown to plain text for a terminal: no backticks, no link targets, no table escapes. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\\\|/g, '|');
}

/** The first clause of a meaning, short enough for one line of `--help`. */
function summary(meaning: string): string {
  const text = plain(meaning);
  const cut = text.search(/(\. |; )/);
  const first = cut < 0 ? text : text.slice(0, cut);
  return first.length > 100 ? `${first.slice(0, 97)}...` : first;
}

const flag = (name: string): string => `--${name.toLowerCase().replace(/_/g, '-')}`;

/** The options part of `portcullis serve --help`: every option by group, with its default and what it does. */
export function renderOptionsHelp(): string {
  return OPTION_GROUPS.map((group) => {
    const lines = rowsOf(group.id).flatMap((row) => [
      `  ${row.names.flatMap((n) => (n.file ? [flag(n.name), `${flag(n.name)}-file`] : [flag(n.name)])).join(', ')}`,
      `      ${summary(row.doc.meaning)} (default: ${plain(row.doc.default)})`,
    ]);
    return `${group.title}:\n${lines.join('\n')}`;
  }).join('\n\n');
}

/** Names our options start with: an unknown variable with one of them is most likely a typo of ours. */
const OUR_PREFIXES = [
  'PORTCULLIS_',
  'OAUTH_',
  'LDAP_',
  'REDIS_',
  'DATABASE_',
  'GITHUB_CLIENT_',
  'GOOGLE_CLIENT_',
  'GENERIC_CLIENT_',
  'FORWARD_AUTH_',
  'METRICS_',
  'OIDC_',
  'JWT_',
];
/** Common variables of shells, containers and CI that sit within two edits of one of ours. */
const WELL_KNOWN = new Set(['USER', 'USERNAME', 'HOST', 'HOSTNAME', 'HOSTTYPE', 'PATH', 'HOME', 'SHELL', 'TERM', 'PWD', 'OLDPWD', 'LANG', 'TZ', 'PORTS']);

/**
 * One warning per environment variable that looks like one of ours but is not (a near miss of a
 * known name, or our prefix with an unknown rest): such a setting is silently ignored otherwise.
 * Names the variable only, never its value.
 */
export function unknownOptionWarnings(env: Readonly<Record<string, string | undefined>>): string[] {
  const known = new Set(OPTION_NAMES);
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (
      known.has(name) ||
      WELL_KNOWN.has(name) ||
      isProviderVariableName(name) ||
      isOidcClientVariableName(name) ||
      isJwtIssuerVariableName(name) ||
      !/^[A-Z][A-Z0-9_]*$/.test(name)
    )
      continue;
    // Two edits are a typo of a long name; a short one (PORT, USERS) allows one.
    const near = nearMiss(name, OPTION_NAMES);
    if (near !== undefined) warnings.push(`${name} is not a Portcullis option and is ignored: did you mean ${near}?`);
    else if (OUR_PREFIXES.some((prefix) => name.startsWith(prefix)))
      warnings.push(`${name} is not a Portcullis option and is ignored (see portcullis serve --help)`);
  }
  return warnings;
}
