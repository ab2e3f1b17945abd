/** Ties an event to the request that caused it (the HTTP adapter's request id), when there was one. */
export interface AuditContext {
  readonly requestId?: string;
}

/** What happened, for operators: logins, logouts, locks and denials. Never carries a secret. */
export type AuditEvent = AuditContext &
  (
    | { readonly event: 'login_succeeded'; readonly username: string; readonly method: string; readonly ip: string }
    | { readonly event: 'login_failed'; readonly login: string; readonly method: string; readonly ip: string; readonly reason: string }
    | { readonly event: 'login_locked'; readonly login: string; readonly ip: string; readonly retryAfter: number }
    | { readonly event: 'logout'; readonly username: string }
    /** A passkey's signature counter did not grow: a copy of its key is in use somewhere (`credential`: the first characters of its id). */
    | {
        readonly event: 'passkey_counter_regressed';
        readonly username: string;
        readonly credential: string;
        readonly stored: number;
        readonly presented: number;
        readonly ip: string;
      }
    | { readonly event: 'passkey_registered' | 'passkey_removed'; readonly username: string; readonly credential: string }
    /** A logged-in person proved again who they are (password, or a passkey-only account's passkey) before a passkey change. */
    | { readonly event: 'reauthenticated'; readonly username: string; readonly method: 'password' | 'passkey'; readonly ip: string }
    | { readonly event: 'totp_enrolled' | 'totp_removed'; readonly username: string; readonly ip: string }
    /** Issue 36: a person changed their own password on the account page (`source`: the users file or the directory). */
    | { readonly event: 'password_changed'; readonly username: string; readonly source: 'file' | 'ldap'; readonly ip: string }
    /** A session proved again what a per-path requirement asked (issue 33): same session, newer proofs. */
    | { readonly event: 'stepped_up'; readonly username: string; readonly methods: readonly string[]; readonly ip: string }
    /** Sessions ended from the account page or the CLI: `scope` one, others or all; `count` how many were ended. */
    | {
        readonly event: 'sessions_revoked';
        readonly username: string;
        readonly scope: 'one' | 'others' | 'all';
        readonly count: number;
        /**
         * `users_file` / `ldap`: the account was removed or disabled there (issue 35; the directory's
         * found by LDAP_ACCOUNT_CHECK_INTERVAL); `admin`: from the admin console (issue 36).
         */
        readonly by: 'account' | 'cli' | 'users_file' | 'ldap' | 'admin';
        /** The acting administrator, when `by` is admin (issue 36). */
        readonly admin?: string;
      }
    /** Issue 36: a request to the admin console refused (`admin_required` or `step_up_required`); `username` empty when anonymous. */
    | { readonly event: 'admin_refused'; readonly username: string; readonly ip: string; readonly reason: string }
    /** Issue 36: an administrator made an invitation or password-reset link (`expiresAt`: ISO time; never the link). */
    | {
        readonly event: 'invitation_issued';
        readonly username: string;
        readonly kind: 'password' | 'passkey';
        readonly admin: string;
        readonly expiresAt: string;
      }
    /** Issue 36: a set-password link redeemed (`ended`: the account's sessions that ended), or refused: malformed, unknown, used, expired, account gone. */
    | { readonly event: 'invitation_redeemed'; readonly username: string; readonly kind: 'password'; readonly ended: number; readonly ip: string }
    | { readonly event: 'invitation_refused'; readonly kind: 'password'; readonly reason: string; readonly ip: string }
    /** Issue 36: an administrator removed a person's self-enrolled TOTP or passkeys (`ended`: the person's sessions that ended). */
    | { readonly event: 'totp_removed'; readonly username: string; readonly admin: string; readonly ended: number; readonly ip: string }
    | {
        readonly event: 'passkeys_removed';
        readonly username: string;
        readonly admin: string;
        readonly count: number;
        readonly ended: number;
        readonly ip: string;
      }
    /** Issue 36: a person of the users file changed from the admin console (`fields`: which ones a create or an update gave). */
    | {
        readonly event: 'user_created' | 'user_updated' | 'user_disabled' | 'user_enabled' | 'user_deleted';
        readonly username: string;
        readonly admin: string;
        readonly fields?: readonly string[];
      }
    /** Issue 36: an administrator asked the console to explain a decision (the URL and person asked about). */
    | { readonly event: 'admin_explained'; readonly admin: string; readonly url: string; readonly username: string }
    /** Issue 36: an administrator downloaded the audit trail (GET /api/admin/audit/export). */
    | { readonly event: 'admin_audit_exported'; readonly admin: string; readonly ip: string }
    /** Issue 32: an access token made (never the token: its public id, name, scope and expiry as ISO time), from the account page or the CLI. */
    | {
        readonly event: 'token_created';
        readonly username: string;
        readonly id: string;
        readonly name: string;
        readonly apps: readonly string[] | null;
        readonly expiresAt: string;
        readonly by: 'account' | 'cli';
      }
    /** Issue 32: an access token revoked, from the account page or the CLI, or because its account was removed (issue 35). */
    | {
        readonly event: 'token_revoked';
        readonly username: string;
        readonly id: string;
        /** `admin`: from the admin console (issue 36), with the acting administrator in `admin`; `users_file` / `ldap`: the account was removed there. */
        readonly by: 'account' | 'cli' | 'admin' | 'users_file' | 'ldap';
        readonly admin?: string;
      }
    /** What an OpenID Connect app held for the person ended from the account page. */
    | { readonly event: 'app_signed_out'; readonly username: string; readonly client: string }
    /** Issue 35: a back-channel logout token an app took (`attempts`: how many it took). */
    | { readonly event: 'oidc_logout_delivered'; readonly client: string; readonly attempts: number }
    /** Issue 35: an attempt that failed (`reason`: unreachable, timeout, refused_<status>); it is retried. */
    | { readonly event: 'oidc_logout_failed'; readonly client: string; readonly attempts: number; readonly reason: string }
    /** Issue 35: a back-channel logout no longer retried: its bound passed, or the client no longer takes logouts. */
    | { readonly event: 'oidc_logout_given_up'; readonly client: string; readonly attempts: number; readonly reason: string }
    /** Issue 35: a session ended but the logouts of its apps could not be queued (the store failed after the revocation). */
    | { readonly event: 'oidc_logout_not_queued'; readonly reason: string }
    /** Issue 35: an upstream provider's back-channel logout ended `count` sessions made from its session (`sid`) or subject (`sub`). */
    | { readonly event: 'upstream_logout'; readonly provider: string; readonly by: 'sid' | 'sub'; readonly count: number }
    /** Issue 35: a back-channel logout token refused (bad signature, wrong audience, replayed…): nothing ended. */
    | { readonly event: 'upstream_logout_refused'; readonly provider: string; readonly reason: string; readonly ip: string }
    /**
     * A session refused because its account changed since: `credential_changed` (password or TOTP
     * secret) or `account_removed`; or because nobody used it for SESSION_IDLE_TIMEOUT: `idle`.
     */
    | { readonly event: 'session_stale'; readonly username: string; readonly reason: 'credential_changed' | 'account_removed' | 'idle' }
    | { readonly event: 'logout_refused'; readonly ip: string; readonly reason: string }
    | { readonly event: 'access_denied'; readonly username: string; readonly host: string; readonly reason: string }
    /** The OpenID Connect provider let a person into a client (`sso`: with an existing gateway session, nothing typed). */
    | { readonly event: 'oidc_login'; readonly username: string; readonly client: string; readonly ip: string }
    /** The OpenID Connect provider refused a person a client (its ALLOWED_USERS / ALLOWED_GROUPS). */
    | { readonly event: 'oidc_access_denied'; readonly username: string; readonly client: string; readonly ip: string; readonly reason: string }
    /** Issue 17: the primary vouched for a session towards a secondary cookie domain (`domain`), or the secondary set its cookie from the code. */
    | { readonly event: 'handoff_issued' | 'handoff_redeemed'; readonly username: string; readonly domain: string; readonly ip: string }
    /** A hand-off code refused: unknown, replayed or expired, for another domain, from another browser, or its session ended. */
    | { readonly event: 'handoff_refused'; readonly domain: string; readonly reason: string; readonly ip: string }
    /** Issue 16: an administrator made a first-passkey link for a passkey-only account (`expiresAt`: ISO time). */
    | { readonly event: 'passkey_enrolment_link_issued'; readonly username: string; readonly expiresAt: string }
    /** Issue 16: an enrolment link redeemed (a registration began), or refused: unknown, used, expired, or its account changed. */
    | { readonly event: 'passkey_enrolment_started'; readonly username: string; readonly ip: string }
    | { readonly event: 'passkey_enrolment_refused'; readonly reason: string; readonly ip: string }
    /** A proxy's forwarded headers named no single well-formed request (`field` is the header), so nothing was decided. */
    /**
     * Issue 32: a presented access token or workload JWT refused (never the token; the owner and
     * token id when it was found, the configured issuer's id for a JWT).
     */
    | {
        readonly event: 'token_refused';
        readonly reason: string;
        readonly ip: string;
        readonly username?: string;
        readonly tokenId?: string;
        readonly issuer?: string;
      }
    | { readonly event: 'forwarded_request_refused'; readonly proxy: string; readonly field: string; readonly problem: string; readonly ip: string }
  );

export interface AuditLog {
  /** Records an event; must not throw. */
  record(event: AuditEvent): void;
}
