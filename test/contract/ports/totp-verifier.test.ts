import * as otplib from 'otplib';
import { createGuardrails, generate } from 'otplib';
import { OtplibTotpVerifier } from '../../../src/adapters/crypto/otplib-totp-verifier';
import { FakeTotpVerifier } from '../../support/fakes';
import { totpVerifierContract } from './totp-verifier.contract';

/** Codes as an authenticator app computes them; the guardrail is lowered only to mint codes for 80-bit test secrets. */
const guardrails = createGuardrails({ MIN_SECRET_BYTES: 10 });
const realCode = (secret: string, nowMs: number): Promise<string> => generate({ secret, epoch: Math.floor(nowMs / 1000), guardrails });

totpVerifierContract('OtplibTotpVerifier', () => ({ verifier: new OtplibTotpVerifier(() => otplib), codeAt: realCode }));
totpVerifierContract('FakeTotpVerifier', () => ({ verifier: new FakeTotpVerifier(), codeAt: (secret, nowMs) => FakeTotpVerifier.codeAt(secret, nowMs) }));

describe('OtplibTotpVerifier', () => {
  const verifier = new OtplibTotpVerifier(() => otplib);
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const now = Date.UTC(2026, 0, 1, 12, 0, 10);

  it('accepts the secret in lower case or grouped with spaces, as people copy it', async () => {
    const code = await realCode(secret, now);
    expect(await verifier.verify('jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp', code, now)).toBe(Math.floor(now / 30_000));
  });

  it('accepts a code typed with a space in the middle', async () => {
    const code = await realCode(secret, now);
    expect(await verifier.verify(secret, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(Math.floor(now / 30_000));
  });

  it('matches the RFC 6238 SHA-1 test vector', async () => {
    // RFC 6238 appendix B: secret "12345678901234567890" at T = 59 s gives 94287082 (8 digits); we use its last six.
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(await verifier.verify(rfcSecret, '287082', 59_000)).toBe(1);
  });
});
