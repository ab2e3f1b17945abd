import type { HandoffGrant } from '../../application/ports/handoff-codes';

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
