import { verify } from 'otplib';
import type { TotpVerifier } from '../../application/ports/totp-verifier';

const CODE = /^\d{6}$/;
const BASE32 = /^[A-Z2-7]+=*$/;

/** RFC 6238 codes through otplib, 30-second steps, one step of drift either way. */
export class OtplibTotpVerifier implements TotpVerifier {
  async verify(secret: string, code: string, nowMs: number): Promise<number | null> {
    const token = code.replace(/\s+/g, '');
    const normalized = secret.replace(/\s+/g, '').toUpperCase();
    if (!CODE.test(token) || !BASE32.test(normalized)) return null;
    try {
      const epoch = Math.floor(nowMs / 1000);
      const result = await verify({ secret: normalized, token, epoch, epochTolerance: 30 });
      // The matched step is the current one shifted by the drift otplib found.
      return result.valid ? Math.floor(epoch / 30) + result.delta : null;
    } catch {
      return null;
    }
  }
}
