import type { Clock } from '../../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../../application/handoff/handoff-codes';
import { InMemorySingleUseValues } from './in-memory-single-use-values';

/**
 * Hand-off codes in this process (one replica, no durable store). Bounded: a flood of hand-off
 * starts evicts the oldest codes, which at 30 s of life are the ones closest to expiry anyway.
 * Swept every 1024 puts: hand-off starts can be frequent, and a sweep walks every code.
 */
export class InMemoryHandoffCodes extends InMemorySingleUseValues<HandoffGrant> implements HandoffCodes {
  constructor(clock: Clock, capacity = 100_000) {
    super(clock, capacity, 1024);
  }
}
