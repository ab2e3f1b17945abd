import { InMemoryAccessRulesSource } from '../adapters/rules/in-memory-access-rules-source';
import { YamlFileAccessRulesSource } from '../adapters/rules/yaml-file-access-rules-source';
import type { Logger } from '../adapters/system/logger';
import type { AccessPolicy } from '../application/forward-auth/access-policy';
import type { AccessRulesSource } from '../application/forward-auth/access-rules-source';
import { AllowAuthenticatedPolicy } from '../application/forward-auth/allow-authenticated-policy';
import { AuthorizeProxyRequestUseCase } from '../application/forward-auth/authorize-proxy-request';
import { loginTargetsOf, type LoginTargets } from '../application/forward-auth/login-targets';
import { LoginTargetMemo } from '../adapters/http/login-target-memo';
import type { GatewaySettings } from '../application/settings';
import { RulesAccessPolicy } from '../application/forward-auth/rules-access-policy';
import type { Clock } from '../application/ports/clock';
import type { SigningKeys } from '../application/oidc/signing-keys';
import type { SubjectIdentifiers } from '../application/oidc/subject-identifiers';
import { allowAuthenticatedRules } from '../domain/access-rules';
import type { TypedContainer } from './binding';
import type { Config } from '../config/load';
import { identityAssertionsOf, providerKeySet } from './identity-assertions';
import { optionalModules } from './optional-modules';
import type { Resources } from './resources';
import { TOKENS } from './tokens';

/**
 * Forward auth: the access rules (with ACCESS_CONFIG the rules file decides, watched from
 * `gateway.start()`; without it every logged-in person passes), the policy over them, the signed
 * identity for upstreams, and the decision itself.
 */
export function bindForwardAuth(c: TypedContainer, config: Pick<Config, 'accessConfig' | 'accessRules' | 'appUrl' | 'oidc'>): void {
  c.bind(
    TOKENS.AccessRulesSource,
    (logger: Logger, resources: Resources): AccessRulesSource => {
      if (config.accessConfig === null) return new InMemoryAccessRulesSource(allowAuthenticatedRules());
      const source = new YamlFileAccessRulesSource(config.accessConfig, optionalModules.yaml(), {
        logger,
        // The rules loadConfig read and validated: the file is not read a second time.
        initial: config.accessRules ?? undefined,
        watch: false,
      });
      resources.onStart(() => source.start());
      resources.add(() => source.close());
      return source;
    },
    [TOKENS.Logger, TOKENS.Resources],
  );
  c.bind(
    TOKENS.AccessPolicy,
    (source: AccessRulesSource, logger: Logger, clock: Clock): AccessPolicy =>
      config.accessConfig === null
        ? new AllowAuthenticatedPolicy()
        : new RulesAccessPolicy(source, clock, (e) =>
            logger.error('access rules evaluation failed; request denied', { error: e instanceof Error ? e.name : 'unknown' }),
          ),
    [TOKENS.AccessRulesSource, TOKENS.Logger, TOKENS.Clock],
  );
  c.bind(
    TOKENS.IdentityAssertions,
    (subjects: SubjectIdentifiers, keys: SigningKeys, clock: Clock, logger: Logger) =>
      identityAssertionsOf(config, subjects, clock, logger, providerKeySet(config, keys)),
    [TOKENS.SubjectIdentifiers, TOKENS.SigningKeys, TOKENS.Clock, TOKENS.Logger],
  );
  // Where to log in, per original URL: a pure function of the URL and the domains, remembered (bounded) by the HTTP edge's memo.
  c.bind(TOKENS.LoginTargets, (settings: GatewaySettings): LoginTargets => new LoginTargetMemo(loginTargetsOf(settings)), [TOKENS.Settings]);
  c.bindClass(TOKENS.AuthorizeProxyRequestUseCase, AuthorizeProxyRequestUseCase, [
    TOKENS.RequestAuthenticator,
    TOKENS.AccessPolicy,
    TOKENS.LoginTargets,
    TOKENS.AuditLog,
    TOKENS.IdentityAssertions,
    TOKENS.StepUpPrompt,
  ]);
}
