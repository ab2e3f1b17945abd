import type { Config, ConfigResult, ConfigSources } from '../config/load';
import { loadConfig as loadConfigWith } from '../config/load';
import type { ConfigLibraries } from '../config/libraries';
import { configWarnings as configWarningsWith } from '../config/warnings';
import { TldtsPublicSuffixList } from '../adapters/system/tldts-public-suffix-list';
import { optionalModules } from './optional-modules';

const publicSuffixes = new TldtsPublicSuffixList();

/** What src/config needs from outside it: ldapts's filter parser and yaml (loaded only when used), and the public-suffix list. */
const CONFIG_LIBRARIES: ConfigLibraries = {
  yaml: optionalModules.yaml,
  parseLdapFilter: (filter) => optionalModules.ldapts().FilterParser.parseString(filter),
  registrableDomain: (host) => publicSuffixes.registrableDomain(host),
  isPublicName: (host) => publicSuffixes.isPublicName(host),
};

/** Parses and validates the configuration (src/config/load.ts) with the libraries composition owns. */
export function loadConfig(sources: ConfigSources): ConfigResult {
  return loadConfigWith(sources, CONFIG_LIBRARIES);
}

/** What a valid configuration still gets a loud warning for (src/config/warnings.ts). */
export function configWarnings(config: Config): string[] {
  return configWarningsWith(config, CONFIG_LIBRARIES.isPublicName);
}
