/**
 * Each account's own choice of a passkey as the second step after its password (issue 16), for
 * when PASSKEY_SECOND_FACTOR does not already ask it of every account holding a passkey. Durable
 * and shared by every replica; read at the password step only (never on the forward-auth path).
 */
export interface PasskeySecondFactorChoices {
  /** Whether `username` chose a passkey as its second factor. Throws StateStoreUnavailableError when the store cannot answer. */
  chosen(username: string): Promise<boolean>;
  /** Records (true) or withdraws (false) the choice. Idempotent. Throws like {@link chosen}. */
  choose(username: string, passkey: boolean): Promise<void>;
}
