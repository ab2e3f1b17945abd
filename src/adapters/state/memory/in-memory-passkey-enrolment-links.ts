import type { Clock } from '../../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../../application/passkeys/passkey-enrolment-links';
import { InMemorySingleUseValues } from './in-memory-single-use-values';

/**
 * Enrolment links in this process (one replica, no durable store; gone at a restart). Bounded.
 * Swept at every put: links are made one at a time by an administrator, so a sweep costs little.
 */
export class InMemoryPasskeyEnrolmentLinks extends InMemorySingleUseValues<string> implements PasskeyEnrolmentLinks {
  constructor(clock: Clock, capacity = 10_000) {
    super(clock, capacity, 1);
  }
}
