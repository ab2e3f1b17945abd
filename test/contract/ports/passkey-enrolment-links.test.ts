import { HmacPasskeyEnrolmentLinks } from '../../../src/adapters/crypto/hmac-one-time-links';
import { InMemoryPasskeyEnrolmentLinks } from '../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { InMemoryPasskeySecondFactorChoices } from '../../../src/adapters/state/memory/in-memory-passkey-second-factor-choices';
import type { PasskeyEnrolmentLinks } from '../../../src/application/passkeys/passkey-enrolment-links';
import { TEST_SECRET } from '../../support/credentials';
import { FixedClock } from '../../support/fakes';
import { passkeyEnrolmentLinksContract } from './passkey-enrolment-links.contract';
import { passkeySecondFactorChoicesContract } from './passkey-second-factor-choices.contract';

passkeyEnrolmentLinksContract('InMemoryPasskeyEnrolmentLinks', ({ clock }) => new InMemoryPasskeyEnrolmentLinks(clock));
passkeyEnrolmentLinksContract('HmacPasskeyEnrolmentLinks', ({ clock }) => new HmacPasskeyEnrolmentLinks(new InMemoryPasskeyEnrolmentLinks(clock), TEST_SECRET));
passkeySecondFactorChoicesContract('InMemoryPasskeySecondFactorChoices', () => new InMemoryPasskeySecondFactorChoices());

describe('HmacPasskeyEnrolmentLinks', () => {
  /** Remembers what reached the store. */
  class Recording implements PasskeyEnrolmentLinks {
    readonly keys: string[] = [];
    constructor(private readonly inner: PasskeyEnrolmentLinks) {}
    put(code: string, username: string, untilMs: number): Promise<void> {
      this.keys.push(code);
      return this.inner.put(code, username, untilMs);
    }
    take(code: string): Promise<string | null> {
      this.keys.push(code);
      return this.inner.take(code);
    }
  }

  it('hands the store a keyed hash of the code, never the code, and one that depends on SECRET', async () => {
    const clock = new FixedClock();
    const [a, b] = [new Recording(new InMemoryPasskeyEnrolmentLinks(clock)), new Recording(new InMemoryPasskeyEnrolmentLinks(clock))];
    await new HmacPasskeyEnrolmentLinks(a, TEST_SECRET).put('the-code-itself', 'dora', clock.now() + 1000);
    await new HmacPasskeyEnrolmentLinks(b, `${TEST_SECRET}-other`).put('the-code-itself', 'dora', clock.now() + 1000);
    expect(a.keys[0]).not.toContain('the-code-itself');
    expect(a.keys[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.keys[0]).not.toBe(a.keys[0]);
  });

  it('does not redeem with a code made under another SECRET', async () => {
    const clock = new FixedClock();
    const store = new InMemoryPasskeyEnrolmentLinks(clock);
    await new HmacPasskeyEnrolmentLinks(store, TEST_SECRET).put('code-1', 'dora', clock.now() + 1000);
    expect(await new HmacPasskeyEnrolmentLinks(store, `${TEST_SECRET}-other`).take('code-1')).toBeNull();
    expect(await new HmacPasskeyEnrolmentLinks(store, TEST_SECRET).take('code-1')).toBe('dora');
  });
});

describe('InMemoryPasskeyEnrolmentLinks', () => {
  it('never holds more than its capacity: the oldest links go first', async () => {
    const clock = new FixedClock();
    const links = new InMemoryPasskeyEnrolmentLinks(clock, 10);
    for (let i = 0; i < 50; i += 1) await links.put(`c-${i}`, `user-${i}`, clock.now() + 60_000);
    expect(await links.take('c-49')).toBe('user-49');
    expect(await links.take('c-0')).toBeNull();
  });
});
