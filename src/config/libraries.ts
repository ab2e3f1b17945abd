/**
 * What reading the configuration needs from outside src/config: libraries composition loads
 * (ldapts's filter parser, only with LDAP; yaml, only for a YAML file) and the public-suffix list
 * of an adapter. Composition hands them in (src/composition/config.ts), so config depends on
 * the domain alone.
 */
export interface ConfigLibraries {
  /** The yaml package, loaded on first use (ACCESS_CONFIG, USERS_FILE in its YAML form). */
  readonly yaml: () => typeof import('yaml');
  /** Parses an RFC 4515 filter, throwing when it is not one (LDAP_SEARCH_FILTER, LDAP_GROUP_FILTER). */
  readonly parseLdapFilter: (filter: string) => unknown;
  /** The registrable domain of a host by the public-suffix list, or null (APP_URL's cookie domains). */
  readonly registrableDomain: (host: string) => string | null;
  /** Whether a host is a name on the public internet (not localhost, an address, or a .test/.local/.internal name). */
  readonly isPublicName: (host: string) => boolean;
}
