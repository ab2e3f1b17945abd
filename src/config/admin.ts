import type { EnvReader } from './env';
import { integer, list, options } from './option-spec';

/** The admin console section (issue 36): who administers, and how fresh their second factor must be. */

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
});

export interface AdminConfig {
  /** ADMIN_GROUPS: empty when the console is off. */
  readonly adminGroups: readonly string[];
  /** ADMIN_STEP_UP_MAX_AGE, in seconds. */
  readonly adminStepUpMaxAge: number;
}

export function readAdmin(r: EnvReader): AdminConfig {
  return {
    adminGroups: r.option(ADMIN_OPTIONS, 'ADMIN_GROUPS'),
    adminStepUpMaxAge: r.option(ADMIN_OPTIONS, 'ADMIN_STEP_UP_MAX_AGE'),
  };
}
