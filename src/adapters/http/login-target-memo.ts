import type { LoginRequired, LoginTargets } from '../../application/forward-auth/login-targets';
import type { OriginalRequest } from '../../domain/forwarded-request';
import { BoundedMemo } from '../state/bounded-map';

/** How many original URLs keep where they log in, and the longest one kept (ADR 0029). */
const LOGIN_TARGETS_MAX = 256;
const LOGIN_TARGET_URL_MAX_LENGTH = 1024;

/**
 * Where each recently refused original URL logs in: a browser without a session gets a 302 on
 * every request, and vetting the URL runs the WHATWG URL parser each time (twice for a secondary
 * domain). `LoginTargets` is a function of the URL text and the configured domains (fixed for the
 * gateway's life), so this memo, keyed by the exact text, answers exactly what it would and never
 * needs invalidating (ADR 0040).
 */
export class LoginTargetMemo implements LoginTargets {
  private readonly memo = new BoundedMemo<string, LoginRequired>(LOGIN_TARGETS_MAX, LOGIN_TARGET_URL_MAX_LENGTH);

  constructor(private readonly targets: LoginTargets) {}

  of(original: OriginalRequest): LoginRequired {
    return this.memo.get(original.url) ?? this.memo.remember(original.url, Object.freeze(this.targets.of(original)));
  }
}
