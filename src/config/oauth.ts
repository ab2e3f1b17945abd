import { parseOAuthWhitelist, type OAuthWhitelist } from '../domain/oauth-whitelist';
import type { EnvReader } from './env';
import { httpUrlValue, issuerValue, oauthClient, readPatternProviders, SCOPE, type GenericConfig } from './oauth-providers';
import { integer, list, lowercase, oneOf, options, text } from './option-spec';

/** The oauth section: GitHub, Google, the GENERIC_ provider, the `OAUTH_PROVIDERS_<ID>_…` ones, and the rules for all of them. */

export const OAUTH_OPTIONS = options({
  GITHUB_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET` (or `GITHUB_CLIENT_ID_FILE`, `GITHUB_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'GitHub OAuth app credentials',
    },
  },
  GITHUB_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GITHUB_CLIENT_ID' } },
  GITHUB_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://github.com',
    doc: { default: '`https://github.com`', meaning: 'web base of the authorize and token endpoints (GitHub Enterprise: `https://ghe.example.com`)' },
  },
  GITHUB_API_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://api.github.com',
    doc: { default: '`https://api.github.com`', meaning: 'REST API base (GitHub Enterprise: `https://ghe.example.com/api/v3`)' },
  },
  GITHUB_GROUPS: {
    group: 'oauth',
    parse: oneOf(['off', 'orgs', 'teams']),
    fallback: 'off',
    doc: {
      default: '`off`',
      meaning:
        'GitHub memberships as groups for access rules and `Remote-Groups`: `orgs` (`acme`) or `teams` (`acme` and `acme:platform`, by team slug); asks for the `read:org` scope. See [OAuth](oauth.md#github-organisations-and-teams)',
    },
  },
  GITHUB_ORGS: {
    group: 'oauth',
    parse: list,
    fallback: [],
    doc: {
      default: 'empty (any account)',
      meaning: 'only members of one of these GitHub organisations may log in through GitHub (comma or space separated; turns on at least `GITHUB_GROUPS=orgs`)',
    },
  },
  GOOGLE_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET` (or `GOOGLE_CLIENT_ID_FILE`, `GOOGLE_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'Google OAuth client credentials',
    },
  },
  GOOGLE_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GOOGLE_CLIENT_ID' } },
  GOOGLE_AUTH_URL: {
    group: 'oauth',
    parse: text,
    fallback: 'https://accounts.google.com/o/oauth2/v2/auth',
    doc: {
      label: '`GOOGLE_AUTH_URL`, `GOOGLE_TOKEN_URL`, `GOOGLE_USER_URL`',
      default: "Google's public endpoints",
      meaning: 'override only for tests or a proxy',
    },
  },
  GOOGLE_TOKEN_URL: { group: 'oauth', parse: text, fallback: 'https://oauth2.googleapis.com/token', doc: { sameRowAs: 'GOOGLE_AUTH_URL' } },
  GOOGLE_USER_URL: { group: 'oauth', parse: text, fallback: 'https://openidconnect.googleapis.com/v1/userinfo', doc: { sameRowAs: 'GOOGLE_AUTH_URL' } },
  GOOGLE_HOSTED_DOMAINS: {
    group: 'oauth',
    parse: list,
    fallback: [],
    doc: {
      default: 'empty (any account)',
      meaning:
        "only accounts of these Google Workspace domains may log in through Google: the `hd` claim Google vouches for must be one of them (the e-mail's domain alone is not enough). Also sent as the `hd` hint",
    },
  },
  GENERIC_CLIENT_ID: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    file: true,
    configures: true,
    doc: {
      label: '`GENERIC_CLIENT_ID`, `GENERIC_CLIENT_SECRET` (or `GENERIC_CLIENT_ID_FILE`, `GENERIC_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning: 'client credentials at your provider',
    },
  },
  GENERIC_CLIENT_SECRET: { group: 'oauth', parse: text, fallback: undefined, file: true, secret: true, doc: { sameRowAs: 'GENERIC_CLIENT_ID' } },
  GENERIC_AUTH_URL: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    doc: {
      label: '`GENERIC_AUTH_URL`, `GENERIC_TOKEN_URL`, `GENERIC_USER_URL`',
      default: '— (required for generic without `GENERIC_ISSUER`)',
      meaning: 'authorization, token and userinfo endpoints',
    },
  },
  GENERIC_TOKEN_URL: { group: 'oauth', parse: text, fallback: undefined, doc: { sameRowAs: 'GENERIC_AUTH_URL' } },
  GENERIC_USER_URL: { group: 'oauth', parse: text, fallback: undefined, doc: { sameRowAs: 'GENERIC_AUTH_URL' } },
  GENERIC_ISSUER: {
    group: 'oauth',
    parse: text,
    fallback: undefined,
    doc: {
      default: '—',
      meaning:
        "the provider's issuer: the endpoints not set are read from its OpenID Connect discovery document, and the `iss` of every callback is checked against it ([RFC 9207](oauth.md#mix-up-protection-the-iss-parameter))",
    },
  },
  GENERIC_SCOPES: {
    group: 'oauth',
    parse: list,
    fallback: ['openid', 'email', 'profile'],
    doc: { default: '`openid email profile`', meaning: 'comma or space separated; add `groups` if your provider needs it for the groups claim' },
  },
  GENERIC_NAME: { group: 'oauth', parse: text, fallback: 'Generic', doc: { default: '`Generic`', meaning: 'how the UI names the generic provider' } },
  OAUTH_WHITELIST: {
    group: 'oauth',
    parse: text,
    fallback: '',
    doc: {
      default: 'empty (everyone)',
      meaning:
        'who may log in through OAuth, see [OAuth](oauth.md#who-may-log-in-oauth_whitelist). Empty with an OAuth provider and no `ACCESS_CONFIG`: a `warn` line at start and a warning from `config check`',
    },
  },
  OAUTH_AUTO_REDIRECT: {
    group: 'oauth',
    parse: lowercase,
    fallback: 'none',
    doc: {
      default: '`none`',
      meaning:
        '`github`, `google`, `generic` or a provider id of `OAUTH_PROVIDERS_<ID>_…` to send the login page straight to that provider; must name a configured provider',
    },
  },
  OAUTH_TIMEOUT: { group: 'oauth', parse: integer(1, 120), fallback: 10, doc: { default: '`10`', meaning: 'seconds any single call to a provider may take' } },
});

/** GitHub memberships read as groups (`GITHUB_GROUPS`). */
export type GitHubGroups = 'off' | 'orgs' | 'teams';

export interface GitHubConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Web base for the authorize and token endpoints (GitHub Enterprise: its host). */
  readonly url: string;
  /** REST API base. */
  readonly apiUrl: string;
  /** Memberships read as groups (`GITHUB_GROUPS`, at least `orgs` when `GITHUB_ORGS` is set). */
  readonly groups: GitHubGroups;
  /** `GITHUB_ORGS`, lower case: the organisations whose members may log in; empty admits any account. */
  readonly orgs: readonly string[];
}

/** Google's client, endpoints and Workspace domains (the provider adapter's options but for the shared timeout). */
export interface GoogleConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly authUrl: string;
  readonly tokenUrl: string;
  readonly userUrl: string;
  /** `GOOGLE_HOSTED_DOMAINS`, lower case: the Workspace domains admitted (the `hd` claim); empty admits any account. */
  readonly hostedDomains?: readonly string[];
}

export type { GenericConfig } from './oauth-providers';

/** The OAuth providers that are on (each present only when fully configured) and the rules for all of them. */
export interface OAuthConfig {
  readonly github?: GitHubConfig;
  readonly google?: GoogleConfig;
  /** The `GENERIC_*` provider (id `generic`). */
  readonly generic?: GenericConfig;
  /** The `OAUTH_PROVIDERS_<ID>_…` providers, by id in alphabetical order. */
  readonly providers: readonly GenericConfig[];
  /** `OAUTH_WHITELIST`, parsed once here (empty admits everyone: kind `anyone`). */
  readonly whitelist: OAuthWhitelist;
  /** Bound on every call to a provider. */
  readonly timeoutSeconds: number;
}

export interface OAuthSectionConfig {
  readonly oauth: OAuthConfig;
  readonly genericName: string;
  readonly oauthAutoRedirect: string;
}

/** The ids of the providers that are on, built-in ones first. */
export function configuredProviders(oauth: OAuthConfig): string[] {
  return [
    ...[oauth.github && 'github', oauth.google && 'google', oauth.generic && 'generic'].filter((p): p is string => typeof p === 'string'),
    ...oauth.providers.map((p) => p.id),
  ];
}

/** The names of the providers that are on, as their buttons show them. */
export function providerNames(oauth: OAuthConfig): string[] {
  return [oauth.github && 'GitHub', oauth.google && 'Google', oauth.generic?.name, ...oauth.providers.map((p) => p.name)].filter(
    (p): p is string => typeof p === 'string',
  );
}

type HttpUrlOption =
  'GITHUB_URL' | 'GITHUB_API_URL' | 'GOOGLE_AUTH_URL' | 'GOOGLE_TOKEN_URL' | 'GOOGLE_USER_URL' | 'GENERIC_AUTH_URL' | 'GENERIC_TOKEN_URL' | 'GENERIC_USER_URL';

/** Every provider, OAUTH_WHITELIST, OAUTH_AUTO_REDIRECT (a configured provider or none) and OAUTH_TIMEOUT. */
export function readOAuth(r: EnvReader, appUrl: string): OAuthSectionConfig {
  const httpUrl = (name: HttpUrlOption): string | undefined => httpUrlValue(r, name, r.option(OAUTH_OPTIONS, name));
  const github = readGitHub(r, httpUrl);
  const googleClient = oauthClient(r, 'GOOGLE', []);
  const hostedDomains = r.option(OAUTH_OPTIONS, 'GOOGLE_HOSTED_DOMAINS').map((d) => d.toLowerCase());
  if (hostedDomains.some((d) => !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(d)))
    r.problems.push('GOOGLE_HOSTED_DOMAINS holds an entry that is not a domain name');
  const google = googleClient && {
    ...googleClient,
    authUrl: httpUrl('GOOGLE_AUTH_URL') ?? '',
    tokenUrl: httpUrl('GOOGLE_TOKEN_URL') ?? '',
    userUrl: httpUrl('GOOGLE_USER_URL') ?? '',
    hostedDomains,
  };
  const genericIssuer = issuerValue(r, 'GENERIC_ISSUER', r.option(OAUTH_OPTIONS, 'GENERIC_ISSUER'));
  const genericClient = oauthClient(r, 'GENERIC', genericIssuer === undefined ? ['GENERIC_AUTH_URL', 'GENERIC_TOKEN_URL', 'GENERIC_USER_URL'] : []);
  const scopes = [...r.option(OAUTH_OPTIONS, 'GENERIC_SCOPES')];
  if (scopes.some((s) => !SCOPE.test(s))) r.problems.push('GENERIC_SCOPES holds a character a scope may not contain');
  const generic: GenericConfig | undefined = genericClient && {
    ...genericClient,
    id: 'generic',
    name: r.option(OAUTH_OPTIONS, 'GENERIC_NAME'),
    authUrl: httpUrl('GENERIC_AUTH_URL'),
    tokenUrl: httpUrl('GENERIC_TOKEN_URL'),
    userUrl: httpUrl('GENERIC_USER_URL'),
    issuer: genericIssuer,
    scopes,
  };
  const providers = readPatternProviders(r, appUrl);
  const parsedWhitelist = parseOAuthWhitelist(r.option(OAUTH_OPTIONS, 'OAUTH_WHITELIST'));
  if (!parsedWhitelist.ok) r.problems.push(`OAUTH_WHITELIST ${parsedWhitelist.error}`);
  // Only reached in a returned Config when there is no problem, so the fallback is never used; it admits nobody.
  const whitelist: OAuthWhitelist = parsedWhitelist.ok ? parsedWhitelist.value : { kind: 'list', emails: new Set(), domains: new Set() };
  const oauth: OAuthConfig = { github, google, generic, providers, whitelist, timeoutSeconds: r.option(OAUTH_OPTIONS, 'OAUTH_TIMEOUT') };
  return { oauth, genericName: r.option(OAUTH_OPTIONS, 'GENERIC_NAME'), oauthAutoRedirect: readAutoRedirect(r, configuredProviders(oauth)) };
}

function readGitHub(r: EnvReader, httpUrl: (name: HttpUrlOption) => string | undefined): GitHubConfig | undefined {
  const githubClient = oauthClient(r, 'GITHUB', []);
  const githubOrgs = r.option(OAUTH_OPTIONS, 'GITHUB_ORGS').map((o) => o.toLowerCase());
  if (githubOrgs.some((o) => !/^[a-z0-9](?:[a-z0-9-]{0,38})$/.test(o))) r.problems.push('GITHUB_ORGS holds a name that is not a GitHub organisation name');
  const githubGroupsRead = r.option(OAUTH_OPTIONS, 'GITHUB_GROUPS');
  // Membership of an organisation can only be checked by reading the organisations.
  const groups: GitHubGroups = githubOrgs.length > 0 && githubGroupsRead === 'off' ? 'orgs' : githubGroupsRead;
  return (
    githubClient && {
      ...githubClient,
      url: httpUrl('GITHUB_URL') ?? '',
      apiUrl: httpUrl('GITHUB_API_URL') ?? '',
      groups,
      orgs: githubOrgs,
    }
  );
}

function readAutoRedirect(r: EnvReader, configured: readonly string[]): string {
  const oauthAutoRedirect = r.option(OAUTH_OPTIONS, 'OAUTH_AUTO_REDIRECT');
  if (oauthAutoRedirect !== 'none' && !configured.includes(oauthAutoRedirect)) {
    r.problems.push(
      configured.length === 0
        ? 'OAUTH_AUTO_REDIRECT must be none: no OAuth provider is configured'
        : `OAUTH_AUTO_REDIRECT must be none or a configured provider (${configured.join(', ')})`,
    );
  }
  return oauthAutoRedirect;
}
