import { createHmac } from 'node:crypto';
import type { SubjectIdentifiers } from '../../application/ports/subject-identifiers';

/**
 * Subjects as an HMAC-SHA256 of the identity source and the username under a key derived from
 * SECRET: stable across replicas and restarts, opaque (no e-mail or username readable in it), and
 * different for different accounts. The OpenID Connect provider and the signed assertions must use
 * the same implementation, so that an application sees one `sub` for a person either way.
 */
export class HmacSubjectIdentifiers implements SubjectIdentifiers {
  constructor(private readonly key: Buffer) {}

  subjectOf(source: string, username: string): string {
    // The separator cannot occur in a source name, so ("a", "b:c") and ("a:b", "c") differ.
    return createHmac('sha256', this.key).update(`${source}\u0000${username}`).digest('base64url');
  }
}
