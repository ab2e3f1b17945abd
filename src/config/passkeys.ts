import type { EnvReader } from './env';
import { boolean, integer, options } from './option-spec';

/** The passkeys section: WebAuthn on or off, as a second factor, and first-passkey links. */

export const PASSKEY_OPTIONS = options({
  PASSKEYS: {
    group: 'gateway',
    parse: boolean,
    fallback: true,
    doc: {
      default: '`true`',
      meaning:
        'passkeys (WebAuthn): people register them on their account page and sign in with them (see [Passkeys](passkeys.md)); `false` removes every passkey route (404) and button',
    },
  },
  PASSKEY_SECOND_FACTOR: {
    group: 'gateway',
    parse: boolean,
    fallback: false,
    doc: {
      default: '`false`',
      meaning: 'an account with a password and a passkey must also show the passkey (or its TOTP code) after the password, like a TOTP account',
    },
  },
  PASSKEY_ENROL_LINK_LIFETIME: {
    group: 'gateway',
    parse: integer(300, 30 * 86400),
    fallback: 86400,
    doc: {
      default: '`86400` (24 hours)',
      meaning:
        'seconds, 300 to 2592000: how long a first-passkey link of a passkey-only account (`portcullis passkeys enrol <user>`, see [Passkey-only accounts](passkeys.md#passkey-only-accounts)) can be used; each link works once',
    },
  },
});

export interface PasskeysConfig {
  /** PASSKEYS: passkey routes, buttons and logins. */
  readonly passkeys: boolean;
  /** PASSKEY_SECOND_FACTOR: a password account holding a passkey owes it (or its TOTP code) after the password. */
  readonly passkeySecondFactor: boolean;
  /** PASSKEY_ENROL_LINK_LIFETIME, in ms: how long a first-passkey link of a passkey-only account works. */
  readonly passkeyEnrolLinkLifetimeMs: number;
}

export function readPasskeys(r: EnvReader): PasskeysConfig {
  return {
    passkeys: r.option(PASSKEY_OPTIONS, 'PASSKEYS'),
    passkeySecondFactor: r.option(PASSKEY_OPTIONS, 'PASSKEY_SECOND_FACTOR'),
    passkeyEnrolLinkLifetimeMs: r.option(PASSKEY_OPTIONS, 'PASSKEY_ENROL_LINK_LIFETIME') * 1000,
  };
}
