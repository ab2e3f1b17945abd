import { createHash } from 'node:crypto';

/**
 * A Redis key for a value that came from a request (a typed login name, an address): short
 * values are kept readable for operators, long ones are hashed so a client cannot make us
 * store arbitrarily long keys.
 */
export function keyPart(raw: string): string {
  return raw.length <= 128 ? raw : `sha256:${createHash('sha256').update(raw).digest('hex')}`;
}
