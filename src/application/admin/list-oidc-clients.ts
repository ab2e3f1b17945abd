import type { OidcClient } from '../../domain/oidc-client';
import { ok, type Result } from '../../domain/result';
import type { OidcClients } from '../oidc/oidc-clients';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';

/** An OIDC client as an administrator reads it: never its secret, nor anything derived from it. */
export interface AdminOidcClientView {
  readonly clientId: string;
  readonly name: string;
  /** `confidential` (it has a secret) or `public` (PKCE, no secret). */
  readonly type: 'confidential' | 'public';
  /** How it authenticates at the token endpoint: `none` for a public client. */
  readonly tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris: readonly string[];
  readonly scopes: readonly string[];
  readonly grantTypes: readonly string[];
  readonly allowedUsers: readonly string[];
  readonly allowedGroups: readonly string[];
  readonly backchannelLogoutUri: string | null;
  readonly frontchannelLogoutUri: string | null;
}

/** Field by field, so that a field added to OidcClient later (a secret, say) is never shown by accident. */
export function describeOidcClient(c: OidcClient): AdminOidcClientView {
  const isPublic = c.secret === null;
  return {
    clientId: c.clientId,
    name: c.name,
    type: isPublic ? 'public' : 'confidential',
    tokenEndpointAuthMethod: isPublic ? 'none' : c.tokenEndpointAuthMethod,
    redirectUris: [...c.redirectUris],
    postLogoutRedirectUris: [...c.postLogoutRedirectUris],
    scopes: [...c.scopes],
    // As the provider registers every client (adapters/oidc); a refresh token comes only with offline_access.
    grantTypes: ['authorization_code', 'refresh_token'],
    allowedUsers: [...c.allowedUsers],
    allowedGroups: [...c.allowedGroups],
    backchannelLogoutUri: c.backchannelLogout?.uri ?? null,
    frontchannelLogoutUri: c.frontchannelLogout?.uri ?? null,
  };
}

/** `GET /api/admin/oidc-clients` (issue 36): the configured relying parties, read-only. */
export class ListOidcClientsUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly clients: OidcClients,
  ) {}

  async execute(request: AdminRequest): Promise<Result<readonly AdminOidcClientView[], AdminRefusal>> {
    const admitted = await this.gate.admit(request);
    if (!admitted.ok) return admitted;
    return ok(this.clients.all().map(describeOidcClient));
  }
}
