import { createHash } from 'node:crypto';
import type { SubjectIdentifiers } from '../../application/oidc/subject-identifiers';

/**
 * `sub` = base64url(SHA-256(JSON `["portcullis-sub-v1", source, lower-cased username]`)), 43
 * characters. Not keyed on purpose: a subject is not a secret (every relying party sees it), and
 * a key (SECRET, the signing keys) is something operators rotate, which would turn every person
 * into a new user in every app. The source keeps a GitHub "alice" and a local "alice" apart; JSON
 * encoding keeps every (source, username) pair apart, whatever characters they hold. Trade-off: a
 * username removed and later given to someone else in the same source gets the same subject, as
 * it would get the same `Remote-User` in forward auth; stores hold no immutable account id.
 */
export class Sha256SubjectIdentifiers implements SubjectIdentifiers {
  subjectOf(source: string, username: string): string {
    return createHash('sha256')
      .update(JSON.stringify(['portcullis-sub-v1', source, username.toLowerCase()]))
      .digest('base64url');
  }
}
