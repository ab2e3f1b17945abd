import type { SessionMethod } from './login-methods';

/** Why a request was refused; stable codes for logs, audit events and `explain`. */
export type DenyReason =
  /** The client address is in `ip.block`. */
  | 'ip_blocked'
  /** `ip.allow` is set and the client address is not in it. */
  | 'ip_not_allowed'
  /** The client address could not be read; rules are never skipped for that. */
  | 'bad_client_ip'
  /** The person matches `users.block`. */
  | 'user_blocked'
  /** An allow list (`users.allow`, `oauth.whitelist`) is set and the person is not on it. */
  | 'user_not_allowed'
  /** `oauth.groups` is set and the person is in none of them. */
  | 'group_missing'
  /** `require_totp` is set and the session did not pass a TOTP check. */
  | 'totp_required'
  | 'token_scope'
  | 'tokens_denied'
  /**
   * A `paths` requirement that this credential can never meet (issue 33): an access token, a JWT or
   * HTTP Basic where the requirement does not name it, or a session where no method it names can
   * be asked again.
   */
  | 'step_up_impossible'
  /** No application matches the host and `default_policy` is `deny`. */
  | 'default_deny'
  /** The rules could not be evaluated; the gateway fails closed. */
  | 'rules_unavailable';

/** The outcome for one forward-auth request. */
export type AccessDecision =
  | {
      readonly kind: 'allow';
      readonly headers?: Readonly<Record<string, string>>;
      /** The application's rule asks for a signed identity assertion for the upstream (`response.assertion`). */
      readonly assertion?: boolean;
    }
  | { readonly kind: 'login_required' }
  /**
   * A `paths` requirement the session does not meet, and a step-up that can (issue 33): the methods
   * that would count (any one of them), and how recent it must be (seconds; null: any time).
   */
  | {
      readonly kind: 'step_up_required';
      readonly methods: readonly SessionMethod[];
      readonly maxAge: number | null;
      readonly app?: string;
    }
  /**
   * The application has path rules and the path can be read in ways that name different resources
   * (a dot-segment, an encoded separator): no reading may be chosen for the upstream, so nothing is
   * decided. `why` names the form, for the audit trail and `explain`.
   */
  | { readonly kind: 'ambiguous_path'; readonly why: string; readonly app?: string }
  | {
      readonly kind: 'deny';
      readonly reason: DenyReason | (string & {});
      /** The application whose rules refused, when one matched. */
      readonly app?: string;
      /** True when the refusal is about where the request comes from, not who sends it (answered 403, never a redirect). */
      readonly network?: boolean;
    };
