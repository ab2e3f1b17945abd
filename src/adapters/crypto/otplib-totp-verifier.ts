import type { TotpVerifier } from '../../application/ports/totp-verifier';

const CODE = /^\d{6}$/;
const BASE32 = /^[A-Z2-7]+=*$/;
// otplib refuses secrets under 128 bits by default (RFC 4226's MUST), yet many existing
// authenticator enrolments use 80-bit (16-character) secrets and USERS accepts them; without this
// such accounts could never pass the TOTP step. Passed per call: no global library option changes.
const MIN_SECRET_BYTES = 10;

/**
 * RFC 6238 codes through otplib, 30-second steps, one step of drift either way. otplib comes from
 * composition's loader (ADR 0015) and loads with the first code checked: a gateway whose people
 * never type a code does not carry it (with its hash and base32 libraries) in its idle memory.
 */
export class OtplibTotpVerifier implements TotpVerifier {
  private guardrails: ReturnType<typeof import('otplib').createGuardrails> | null = null;

  constructor(private readonly otplib: () => typeof import('otplib')) {}

  async verify(secret: string, code: string, nowMs: number): Promise<number | null> {
    const token = code.replace(/\s+/g, '');
    const normalized = secret.replace(/\s+/g, '').toUpperCase();
    if (!CODE.test(token) || !BASE32.test(normalized)) return null;
    try {
      const epoch = Math.floor(nowMs / 1000);
      const { createGuardrails, verify } = this.otplib();
      this.guardrails ??= createGuardrails({ MIN_SECRET_BYTES });
      const result = await verify({ secret: normalized, token, epoch, epochTolerance: 30, guardrails: this.guardrails });
      // The matched step is the current one shifted by the drift otplib found.
      return result.valid ? Math.floor(epoch / 30) + result.delta : null;
    } catch {
      return null;
    }
  }
}
