import type { OidcArtifact } from '../../application/oidc/oidc-artifacts';

/** The payload fields a store indexes, copied out of the provider's JSON when present as strings. */
export interface IndexedFields {
  readonly grantId: string | null;
  readonly uid: string | null;
  readonly userCode: string | null;
}

export function indexedFields(payload: OidcArtifact): IndexedFields {
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  return { grantId: text(payload.grantId), uid: text(payload.uid), userCode: text(payload.userCode) };
}

/**
 * The record as the provider reads it back: its payload, with `consumed` when the store has
 * marked it consumed. Stores keep `consumed` beside the payload, so consuming never rewrites (or
 * re-encodes) the provider's JSON.
 */
export function readRecord(payloadJson: string, consumed: number | null | undefined): OidcArtifact {
  const payload = JSON.parse(payloadJson) as Record<string, unknown>;
  return consumed === null || consumed === undefined ? payload : { ...payload, consumed };
}

/** When a record saved now may be forgotten (ms since the epoch), or null when it is kept until destroyed. */
export function untilOf(nowMs: number, expiresInSeconds: number | undefined): number | null {
  if (expiresInSeconds === undefined || !Number.isFinite(expiresInSeconds)) return null;
  return nowMs + Math.max(0, expiresInSeconds) * 1000;
}
