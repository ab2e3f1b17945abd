import type { EnvReader } from './env';
import { boolean, integer, options } from './option-spec';

/** The access tokens section (issue 32): personal and service tokens on or off, and their longest life. */

export const ACCESS_TOKEN_OPTIONS = options({
  TOKENS: {
    group: 'gateway',
    parse: boolean,
    fallback: true,
    doc: {
      default: '`true`',
      meaning:
        'access tokens for scripts and machines: people make them on their account page or through `/api/account/tokens`, administrators with `portcullis tokens` (see [Access tokens](tokens.md)); `false` removes the token routes (404) and the account page section',
    },
  },
  TOKEN_MAX_LIFETIME: {
    group: 'gateway',
    parse: integer(1, 3650),
    fallback: 365,
    doc: {
      default: '`365`',
      meaning: 'days, 1 to 3650: the longest a token may live, and the life of one made without `expiresInDays` (`--expires`)',
    },
  },
});

export interface AccessTokensConfig {
  /** TOKENS: token routes, the account page section and tokens on forward auth. */
  readonly tokens: boolean;
  /** TOKEN_MAX_LIFETIME, in days: the bound of a token's expiry, and its default. */
  readonly tokenMaxLifetimeDays: number;
}

export function readAccessTokens(r: EnvReader): AccessTokensConfig {
  return {
    tokens: r.option(ACCESS_TOKEN_OPTIONS, 'TOKENS'),
    tokenMaxLifetimeDays: r.option(ACCESS_TOKEN_OPTIONS, 'TOKEN_MAX_LIFETIME'),
  };
}
