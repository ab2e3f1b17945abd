import type { AccessDecision } from '../../domain/access-decision';
import { parseForwarded } from '../../domain/forwarded-request';
import { err, ok, type Result } from '../../domain/result';
import type { Identity } from '../../domain/session';
import type { AccessPolicy } from '../forward-auth/access-policy';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import { type AdminGate, type AdminRefusal, type AdminRequest, admitChange } from './admin-gate';

export interface ExplainAccessInput extends AdminRequest {
  readonly fromThisSite: boolean;
  readonly url: string;
  readonly username: string | null;
  readonly groups: readonly string[];
  readonly address: string;
  readonly method: string;
}

export interface ExplainAccessOutput {
  /** allow, deny, step_up_required or ambiguous_path. */
  readonly decision: AccessDecision['kind'];
  /** Why, in the words of the rules (the deny reason, the step-up's methods, the ambiguity). */
  readonly reason: string;
  readonly app: string | null;
}

export type ExplainAccessError = AdminRefusal | { readonly code: 'cross_site_request' } | { readonly code: 'invalid_url' };

/**
 * `POST /api/admin/explain` (issue 36): the decision the loaded access rules make for a URL and a
 * person with a fresh password session (as `portcullis explain` does, on the live rules).
 */
export class ExplainAccessUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly policy: AccessPolicy,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: ExplainAccessInput): Promise<Result<ExplainAccessOutput, ExplainAccessError>> {
    const admitted = await admitChange(this.gate, this.audit, input);
    if (!admitted.ok) return admitted;
    const m = /^(https?):\/\/([^/?#]+)(.*)$/i.exec(input.url);
    const original =
      m === null ? null : parseForwarded({ proxy: 'traefik', proto: m[1].toLowerCase(), host: m[2], uri: m[3] === '' ? '/' : m[3], method: input.method });
    if (original === null || !original.ok) return err({ code: 'invalid_url' });
    const now = this.clock.now();
    const identity: Identity | null =
      input.username === null
        ? null
        : {
            username: input.username,
            name: input.username,
            email: '',
            groups: input.groups,
            oauth: false,
            totp: false,
            provider: 'username',
            proven: { password: now },
          };
    const decision = this.policy.decide({ original: original.value, identity, ip: input.address });
    this.audit.record({
      event: 'admin_explained',
      admin: admitted.value.identity.username,
      url: input.url,
      username: input.username ?? '',
      requestId: input.requestId,
    });
    return ok({ decision: decision.kind, reason: reasonOf(decision), app: 'app' in decision ? (decision.app ?? null) : null });
  }
}

function reasonOf(decision: AccessDecision): string {
  switch (decision.kind) {
    case 'deny':
      return decision.reason;
    case 'step_up_required':
      return `step-up: ${decision.methods.join(' or ')}${decision.maxAge === null ? '' : ` within ${decision.maxAge} s`}`;
    case 'ambiguous_path':
      return decision.why;
    default:
      return decision.kind;
  }
}
