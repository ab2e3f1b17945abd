/**
 * Values the examples and the documentation show where a real secret belongs. A gateway started
 * with one of them is as open as its example: anyone who read the README knows the key or the
 * password. Markers are long enough that a random secret never contains one by chance.
 */
const MARKERS = [
  'change-me',
  'change_me',
  'changeme',
  'change-this',
  'change_this',
  'changethis',
  'replace-with',
  'replace_with',
  'replace.with',
  'replacewith',
  'replace-me',
  'replace_me',
  'replaceme',
  'your-secret',
  'your_secret',
  'yoursecret',
  'your-client-secret',
  'your_client_secret',
  'your-password',
  'placeholder',
  'example-secret',
  'example_secret',
  'insert-secret',
  'put-your',
];

/** bcrypt hashes once shown in the examples (the old docker-compose demo hash of "portcullis-demo", which copies may still hold). */
const EXAMPLE_HASHES = new Set(['$2b$10$qh8XTM/ilzLw1WKUE1404.udAi8OZn8nKDbNvDORqMRu1KM6HS19q']);

/** The base32 TOTP secret every tutorial uses (it spells "Hello!"). */
const EXAMPLE_TOTP_SECRETS = new Set(['JBSWY3DPEHPK3PXP']);

/** The placeholder marker `value` holds, or null. Never returns the value itself. */
export function placeholderMarkerIn(value: string): string | null {
  const lower = value.toLowerCase();
  return MARKERS.find((m) => lower.includes(m)) ?? null;
}

/**
 * True for a bcrypt hash from the examples, one holding a marker (REPLACE.WITH...), or one whose
 * salt and digest are mostly one character (`$2b$10$....`, `$argon2id$v=19$m=65536,t=3,p=4$...$...`):
 * a real salt and digest use dozens of characters.
 */
export function isPlaceholderHash(hash: string): boolean {
  if (EXAMPLE_HASHES.has(hash) || placeholderMarkerIn(hash) !== null) return true;
  const body = hash.startsWith('$argon2') ? hash.split('$').slice(-2).join('') : hash.slice(7);
  return new Set(body).size < 12;
}

export function isExampleTotpSecret(secret: string): boolean {
  return EXAMPLE_TOTP_SECRETS.has(secret.toUpperCase().replace(/[\s=]/g, ''));
}
