import type { TotpVerifier } from '../../../src/application/ports/totp-verifier';
import { useAdapter, type ContractEnv } from './harness';

/** A verifier with a way to produce the codes it should accept (a real generator, or the fake's formula). */
export interface TotpSubject {
  readonly verifier: TotpVerifier;
  /** The code an authenticator app shows for `secret` at `nowMs`. */
  codeAt(secret: string, nowMs: number): string | Promise<string>;
}

export type TotpFactory = (env: ContractEnv) => TotpSubject | Promise<TotpSubject>;

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
/** 80 bits: what many authenticator enrolments use, and the least USERS accepts. */
const SHORT_SECRET = 'GEZDGNBVGY3TQOJQ';
const OTHER_SECRET = 'KRUGS4ZANFZSAYLON5ZGQZLSEBZWKY3S';
const STEP_MS = 30_000;
/** Ten seconds into a time step, fixed so the test codes never change. */
const NOW = Date.UTC(2026, 0, 1, 12, 0, 10);
const STEP = Math.floor(NOW / STEP_MS);

/** Changes every digit, so the result is a different, still well-formed code. */
const otherDigits = (code: string): string => code.replace(/\d/g, (d) => String((Number(d) + 5) % 10));

/** The behaviour every TotpVerifier must show: RFC 6238 steps, one step of drift, null for anything else. */
export function totpVerifierContract(name: string, makeSubject: TotpFactory): void {
  describe(`TotpVerifier contract: ${name}`, () => {
    const subject = useAdapter(makeSubject);
    const verify = (secret: string, code: string, nowMs = NOW): Promise<number | null> => subject.adapter().verifier.verify(secret, code, nowMs);
    const codeAt = async (secret: string, nowMs: number): Promise<string> => subject.adapter().codeAt(secret, nowMs);

    it('accepts the current code and resolves the current time step', async () => {
      expect(await verify(SECRET, await codeAt(SECRET, NOW))).toBe(STEP);
    });

    it('accepts the code of the previous and of the next step, resolving that step', async () => {
      expect(await verify(SECRET, await codeAt(SECRET, NOW - STEP_MS))).toBe(STEP - 1);
      expect(await verify(SECRET, await codeAt(SECRET, NOW + STEP_MS))).toBe(STEP + 1);
    });

    it('refuses codes two steps away', async () => {
      expect(await verify(SECRET, await codeAt(SECRET, NOW - 2 * STEP_MS))).toBeNull();
      expect(await verify(SECRET, await codeAt(SECRET, NOW + 2 * STEP_MS))).toBeNull();
    });

    it('counts steps from the epoch, so a step boundary moves the window', async () => {
      const boundary = (STEP + 1) * STEP_MS;
      expect(await verify(SECRET, await codeAt(SECRET, boundary), boundary)).toBe(STEP + 1);
      expect(await verify(SECRET, await codeAt(SECRET, boundary - 1), boundary)).toBe(STEP);
      expect(await verify(SECRET, await codeAt(SECRET, boundary - STEP_MS - 1), boundary)).toBeNull();
    });

    it('refuses a wrong code', async () => {
      expect(await verify(SECRET, otherDigits(await codeAt(SECRET, NOW)))).toBeNull();
    });

    it("refuses another secret's code", async () => {
      expect(await verify(SECRET, await codeAt(OTHER_SECRET, NOW))).toBeNull();
    });

    it('accepts an 80-bit secret', async () => {
      expect(await verify(SHORT_SECRET, await codeAt(SHORT_SECRET, NOW))).toBe(STEP);
    });

    it('resolves null for malformed codes', async () => {
      for (const code of ['', '12345', '1234567', 'abcdef', '12345a', '-12345', '１２３４５６', '123456\n7']) {
        expect(await verify(SECRET, code)).toBeNull();
      }
    });

    it('resolves null for an unusable secret instead of throwing', async () => {
      const code = await codeAt(SECRET, NOW);
      for (const secret of ['', '!!!!', '0189', 'AB']) {
        await expect(verify(secret, code)).resolves.toBeNull();
      }
    });
  });
}
