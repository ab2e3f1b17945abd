import { ADMIN_API_METHODS } from '../../../src/adapters/http/admin-routes';
import { apiRoutes, type GatewayUseCases } from '../../../src/adapters/http/routes';
import type { HttpSettings } from '../../../src/adapters/http/http-settings';

// Issue 36: the admin security suite (test/contract/http/admin.test.ts) walks ADMIN_API_METHODS; this
// proves that list is every route the API router registers under /api/admin, so no route escapes it.
const stub: unknown = new Proxy({}, { get: (_t, key) => (key === 'then' ? undefined : stub) });

function adminRoutesOf(useCases: Partial<GatewayUseCases>): string[] {
  const settings = {
    appUrl: 'https://auth.example.test',
    cookies: { secure: true, domain: null, sameSite: 'lax', name: 'portcullis-session' },
    clientAddress: stub,
    app: stub,
    providers: stub,
    logger: stub,
  } as unknown as HttpSettings;
  const router = apiRoutes({ ...(stub as GatewayUseCases), ...useCases } as GatewayUseCases, settings);
  return router.stack
    .filter((layer) => String(layer.path).startsWith('/api/admin'))
    .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`))
    .sort();
}

describe('the admin routes the API registers', () => {
  it('are exactly the list the security suite walks', () => {
    const listed = ADMIN_API_METHODS.flatMap(([path, methods]) => methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${path}`)).sort();
    expect(adminRoutesOf({ admin: stub as GatewayUseCases['admin'], adminInvitations: stub as GatewayUseCases['adminInvitations'] })).toEqual(listed);
  });

  it('are none without the admin use cases (no ADMIN_GROUPS)', () => {
    expect(adminRoutesOf({ admin: undefined, adminInvitations: stub as GatewayUseCases['adminInvitations'] })).toEqual([]);
  });
});
