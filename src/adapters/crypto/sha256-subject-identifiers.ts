import { createHash } from 'node:crypto';
import type { SubjectIdentifiers } from '../../application/ports/subject-identifiers';

/**
 * `sub` = base64url(SHA-256("portcullis-sub-v1" NUL source NUL lower-cased username)), 43
 * characters. Not keyed on purpose: a subject is not a secret (every relying party sees it), and
 * a key (SECRET, the signing keys) is something operators rotate, which would turn every person
 * into a new user in every app. The source keeps a GitHub "alice" and a local "alice" apart; the
 * NUL separators keep ("a", "b\0c") and ("a\0b", "c") apart (names never hold NUL). Trade-off: a
 * username removed and later given to someone else in the same source gets the same subject, as
 * it would get the same `Remote-User` in forward auth; stores hold no immutable account id.
 */
export class Sha256SubjectIdentifiers implements SubjectIdentifiers {
  subjectOf(source: string, username: string): string {
    return createHash('sha256').update(`portcullis-sub-v1\0${source}\0${username.toLowerCase()}`).digest('base64url');
  }
}
