import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../../application/ports/id-generator';

/** 144 random bits, base64url. */
export class RandomIdGenerator implements IdGenerator {
  next(): string {
    return randomBytes(18).toString('base64url');
  }
}
