/**
 * The rules of the OpenID Connect provider's signing key set, apart from the keys' cryptography:
 * which keys a PEM file holds, and what `portcullis oidc keys ...` may do to a stored set.
 */

/** The fields of a signing key these rules look at: its name and its algorithm. */
export interface NamedSigningKey {
  readonly kid: string;
  readonly alg: string;
}

/**
 * The private keys of a PEM file, in order. Several keys in one file are a rotation in progress:
 * the first signs, the others are published so that tokens they signed still verify.
 */
export function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g) ?? [];
}

/**
 * A change to the stored key set (`portcullis oidc keys ...`). `rotate`: a new key signs from each
 * gateway's next start, the old ones stay published. `add`: a new key is published but does not
 * sign yet (several replicas: publish everywhere first, then `promote`). `promote`: a published key
 * signs. `retire`: a key that no longer signs leaves the JWKS (tokens it signed stop verifying).
 */
export type KeySetChange =
  | { readonly kind: 'rotate' }
  | { readonly kind: 'add' }
  | { readonly kind: 'promote'; readonly kid: string }
  | { readonly kind: 'retire'; readonly kid: string };

/** Why a change was refused: one line for the operator, never key material. */
export class KeySetChangeError extends Error {}

/** The key set after `change`, the signing key first; `fresh` makes a new key. Throws {@link KeySetChangeError}. */
export function changeKeySet<K extends NamedSigningKey>(keys: readonly K[], change: KeySetChange, fresh: () => K): K[] {
  switch (change.kind) {
    case 'rotate':
      return [fresh(), ...keys];
    case 'add':
      return [...keys, fresh()];
    case 'promote': {
      const key = keys.find((k) => k.kid === change.kid);
      if (key === undefined) throw new KeySetChangeError(`there is no key ${change.kid} in the set`);
      if (key.alg !== 'RS256') throw new KeySetChangeError(`${change.kid} is a ${key.alg} key; only an RS256 key signs`);
      return [key, ...keys.filter((k) => k !== key)];
    }
    case 'retire': {
      const index = keys.findIndex((k) => k.kid === change.kid);
      if (index === -1) throw new KeySetChangeError(`there is no key ${change.kid} in the set`);
      // The signing key cannot go: a set without it would leave the gateways nothing to sign with.
      if (index === 0) throw new KeySetChangeError(`${change.kid} is the key that signs: rotate (or promote another key) first`);
      return keys.filter((_, i) => i !== index);
    }
    default: {
      const never: never = change;
      return never;
    }
  }
}
