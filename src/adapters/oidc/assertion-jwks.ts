import type Koa from 'koa';
import type { AccessRulesSource } from '../../application/forward-auth/access-rules-source';
import type { AccessRules } from '../../domain/access-rules';
import type { Logger } from '../system/logger';
import type { OidcHttp } from './oidc-provider-http';

/** Where the provider publishes its keys; the same path when only assertions need them. */
export const JWKS_PATH = '/oidc/jwks';

const asksForAssertions = (rules: AccessRules): boolean => rules.fallback.assertion || rules.apps.some((app) => app.assertion);

/**
 * `/oidc/jwks` on a gateway without OpenID Connect clients whose access rules ask for signed
 * assertions (`response.assertion: true`): upstreams verify `Remote-Assertion` against these keys,
 * so they are published at the path the provider would use, and nothing else of the provider is
 * (no discovery: there is no provider to discover). Decided per request from the rules in effect
 * (they reload), so an assertion rule added later publishes the keys without a restart, and a
 * gateway with none keeps the path the UI's 404. The keys are read once, like the signer's.
 */
export function assertionJwks(rules: AccessRulesSource, publicKeys: () => Promise<{ keys: Record<string, unknown>[] }>, logger: Logger): OidcHttp {
  let asked: { version: number; yes: boolean } | null = null;
  let loaded: Promise<string> | null = null;
  const publishes = (): boolean => {
    const version = rules.version();
    if (asked?.version !== version) asked = { version, yes: asksForAssertions(rules.current()) };
    return asked.yes;
  };
  return {
    async middleware(ctx: Koa.Context, next: Koa.Next) {
      if (ctx.path !== JWKS_PATH || !publishes()) return next();
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.status = 405;
        ctx.set('Allow', 'GET, HEAD');
        ctx.body = { error: 'invalid_request', error_description: 'method not allowed' };
        return;
      }
      loaded ??= publicKeys().then((jwks) => JSON.stringify(jwks));
      try {
        ctx.body = await loaded;
      } catch (e) {
        loaded = null;
        logger.error('cannot load the signing keys for the JWKS', { error: e instanceof Error ? e.name : 'unknown' });
        ctx.status = 503;
        ctx.body = { error: 'temporarily_unavailable', error_description: 'the signing keys cannot be read right now' };
        return;
      }
      ctx.type = 'application/jwk-set+json; charset=utf-8';
    },
  };
}
