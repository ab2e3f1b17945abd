import { createGuardrails, verify } from 'otplib';
import type { TotpVerifier } from '../../application/ports/totp-verifier';

const CODE = /^\d{6}$/;
const BASE32 = /^[A-Z2-7]+=*$/;
// otplib refuses secrets under 128 bits by default (RFC 4226's MUST), yet many existing
// authenticator enrolments use 80-bit (16-character) secrets and USERS accepts them; without this
// such accounts could never pass the TOTP step. Passed per call: no global library option changes.
const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 10 });

/** RFC 6238 codes through otplib, 30-second steps, one step of drift either way. */
export class OtplibTotpVerifier implements TotpVerifier {
  async verify(secret: string, code: string, nowMs: number): Promise<number | null> {
    const token = code.replace(/\s+/g, '');
    const normalized = secret.replace(/\s+/g, '').toUpperCase();
    if (!CODE.test(token) || !BASE32.test(normalized)) return null;
    try {
      const epoch = Math.floor(nowMs / 1000);
      const result = await verify({ secret: normalized, token, epoch, epochTolerance: 30, guardrails: GUARDRAILS });
      // The matched step is the current one shifted by the drift otplib found.
      return result.valid ? Math.floor(epoch / 30) + result.delta : null;
    } catch {
      return null;
    }
  }
}
