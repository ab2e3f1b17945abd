import type { EnrolledTotpSecrets } from '../../../application/totp/enrolled-totp-secrets';

/**
 * Self-enrolled TOTP secrets in this process (no durable store configured): gone at a restart,
 * like everything else the gateway keeps in memory then. Bounded: past `capacity` accounts a new
 * enrolment is refused rather than an old one forgotten (forgetting would drop a second factor).
 */
export class InMemoryEnrolledTotpSecrets implements EnrolledTotpSecrets {
  private readonly secrets = new Map<string, string>();

  constructor(private readonly capacity = 100_000) {}

  secretOf(username: string): string | null {
    return this.secrets.size === 0 ? null : (this.secrets.get(username) ?? null);
  }

  async enrol(username: string, secret: string): Promise<boolean> {
    if (this.secrets.has(username) || this.secrets.size >= this.capacity) return false;
    this.secrets.set(username, secret);
    return true;
  }

  async remove(username: string, secret: string): Promise<boolean> {
    if (this.secrets.get(username) !== secret) return false;
    return this.secrets.delete(username);
  }
}
