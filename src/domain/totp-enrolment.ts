/** How long a TOTP set-up may take between showing the secret and confirming it with a first code. */
export const TOTP_ENROLMENT_LIFETIME_MS = 10 * 60 * 1000;

/** What an enrolment token is sealed for: one account and the session that started it. */
export function enrolmentContext(username: string, sessionId: string): string {
  return `totp-enrolment\n${username}\n${sessionId}`;
}

/** The context a self-enrolled secret is sealed for at rest: its account. */
export function storedSecretContext(username: string): string {
  return `totp-secret\n${username}`;
}

/** An opened enrolment token (`<expiresAt> <secret>`), or null when it is not one or has expired at `now`. */
export function readEnrolment(plaintext: string | null, now: number): string | null {
  if (plaintext === null) return null;
  const space = plaintext.indexOf(' ');
  const expiresAt = Number(plaintext.slice(0, space));
  const secret = plaintext.slice(space + 1);
  if (space <= 0 || !Number.isFinite(expiresAt) || expiresAt <= now || !/^[A-Z2-7]{16,}$/.test(secret)) return null;
  return secret;
}
