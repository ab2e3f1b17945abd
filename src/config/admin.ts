import type { EnvReader } from './env';
import { integer, list, options } from './option-spec';

/** The admin console section (issue 36): who administers, how fresh their second factor must be, how long the audit trail is kept. */

export const ADMIN_OPTIONS = options({
  ADMIN_GROUPS: {
    group: 'gateway',
    parse: list,
    fallback: [] as readonly string[],
    doc: {
      default: 'unset',
      meaning:
        'groups (comma-separated) whose members may use the admin console at `/admin` and `/api/admin/*` (see [Admin console](admin.md)); unset: no console, every admin route answers 404',
    },
  },
  ADMIN_STEP_UP_MAX_AGE: {
    group: 'gateway',
    parse: integer(30, 86400),
    fallback: 600,
    doc: {
      default: '`600`',
      meaning: 'seconds, 30 to 86400: how recently an administrator must have proven a second factor (TOTP or a passkey) for each admin request',
    },
  },
  AUDIT_RETENTION_DAYS: {
    group: 'gateway',
    parse: integer(0, 3650),
    fallback: 30,
    doc: {
      default: '`30`',
      meaning:
        'days, 0 to 3650: how long the audit trail the admin console shows is kept in the state store (see [Audit trail](admin.md#audit-trail)); recorded only with `ADMIN_GROUPS`; `0`: no trail is kept (and one left from before is deleted at start); the log lines are written either way',
    },
  },
});

export interface AdminConfig {
  /** ADMIN_GROUPS: empty when the console is off. */
  readonly adminGroups: readonly string[];
  /** ADMIN_STEP_UP_MAX_AGE, in seconds. */
  readonly adminStepUpMaxAge: number;
  /** AUDIT_RETENTION_DAYS: 0 keeps no trail. */
  readonly auditRetentionDays: number;
}

export function readAdmin(r: EnvReader): AdminConfig {
  return {
    adminGroups: r.option(ADMIN_OPTIONS, 'ADMIN_GROUPS'),
    adminStepUpMaxAge: r.option(ADMIN_OPTIONS, 'ADMIN_STEP_UP_MAX_AGE'),
    auditRetentionDays: r.option(ADMIN_OPTIONS, 'AUDIT_RETENTION_DAYS'),
  };
}
