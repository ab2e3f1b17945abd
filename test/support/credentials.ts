import bcrypt from 'bcrypt';

/**
 * The one gateway secret of every suite (unit, contract, redis, ldap, e2e, security). Tests that are
 * about a second, wrong or placeholder secret spell theirs out where they use it.
 */
export const TEST_SECRET = 'portcullis-test-secret-portcullis-test-secret-0123456789';

/** A TOTP secret in base32, long enough for the USERS parser. */
export const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** A bcrypt hash of `password` at the lowest cost, which keeps suites fast (the gateway reads the cost from the hash). */
export const hashOf = (password: string): string => bcrypt.hashSync(password, 4);

const hashes = new Map<string, string>();

/**
 * {@link hashOf}, computed once per password for the whole run, for suites that build many stores from
 * the same seeds (bcrypt is slow on purpose). Two accounts with the same password then share a hash.
 */
export function cachedHashOf(password: string): string {
  let hash = hashes.get(password);
  if (hash === undefined) hashes.set(password, (hash = hashOf(password)));
  return hash;
}

/** One USERS entry: `name:hash` or `name:hash:totpSecret`. */
export function usersEntry(username: string, password: string, totpSecret?: string): string {
  return [username, hashOf(password), ...(totpSecret === undefined ? [] : [totpSecret])].join(':');
}

/** An `Authorization: Basic` value. */
export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}
