import { isLoopbackUrl } from './ldap';
import type { Config } from './load';
import type { GenericConfig } from './oauth';

/**
 * What a valid configuration still gets a loud warning for (logged at start, printed by
 * `config check`): OAuth with neither OAUTH_WHITELIST nor access rules admits every account of
 * the provider, which is rarely meant (anyone with a GitHub account, for one).
 */
export function configWarnings(config: Config, isPublicName: (host: string) => boolean): string[] {
  const warnings: string[] = [];
  // A provider with its own whitelist, GitHub limited to organisations or Google to Workspace domains is not open to everyone.
  const open = [
    ...(config.oauth.github !== undefined && config.oauth.github.orgs.length === 0 ? ['github'] : []),
    ...(config.oauth.google !== undefined && (config.oauth.google.hostedDomains ?? []).length === 0 ? ['google'] : []),
    ...[config.oauth.generic, ...config.oauth.providers].filter((p) => p !== undefined && p.whitelist === undefined).map((p) => (p as GenericConfig).id),
  ];
  const providers = open;
  if (providers.length > 0 && config.oauth.whitelist.kind === 'anyone' && config.accessConfig === null) {
    warnings.push(
      `OAUTH_WHITELIST is empty and ACCESS_CONFIG is not set: every account of ${providers.join(', ')} can log in and pass every protected application. ` +
        'Set OAUTH_WHITELIST (addresses, *@domain or /regex/) or access rules with oauth.whitelist',
    );
  }
  warnings.push(...config.oidc.warnings);
  for (const url of config.appUrls.filter((u) => u.startsWith('http:') && isPublicName(new URL(u).hostname)))
    warnings.push(
      `APP_URL ${url} is plain http:// on a public name: cookies lose Secure and sessions cross the network readable. ` +
        'Serve the login page over https:// (the proxy terminates TLS) and write APP_URL with https://',
    );
  if (config.ldap !== null && !config.ldap.startTls && config.ldap.url.startsWith('ldap:') && !isLoopbackUrl(config.ldap.url)) {
    warnings.push(
      `LDAP_ADDRESS ${config.ldap.url} is plain ldap:// to another machine: passwords cross the network unencrypted. Set LDAP_START_TLS=true (LDAP_CA_FILE for a private CA) or use ldaps://`,
    );
  }
  return warnings;
}
