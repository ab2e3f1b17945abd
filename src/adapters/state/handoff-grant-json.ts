import type { HandoffGrant } from '../../application/handoff/handoff-codes';
import type { SingleUseCodec } from './single-use-codec';

/** A stored grant read back; null for anything that is not one (never trusted blindly, even from our own store). */
export function parseHandoffGrant(json: string): HandoffGrant | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (raw === null || typeof raw !== 'object') return null;
  const { domain, state, sealedSession, redirectTarget } = raw as Record<string, unknown>;
  if (typeof domain !== 'string' || typeof state !== 'string' || typeof sealedSession !== 'string' || typeof redirectTarget !== 'string') return null;
  return { domain, state, sealedSession, redirectTarget };
}

/** A grant kept as JSON in its table's text column, checked when read back. */
export const HANDOFF_GRANT_CODEC: SingleUseCodec<HandoffGrant> = { encode: (grant) => JSON.stringify(grant), decode: parseHandoffGrant };
