import * as api from '../../../src/index';

describe('the public API (src/index.ts)', () => {
  it('offers what a custom host needs: the gateway factory, the config loader, the use cases and the error types', () => {
    for (const name of [
      'createGateway',
      'loadConfig',
      'LoginUseCase',
      'VerifyTotpUseCase',
      'LogoutUseCase',
      'AuthorizeProxyRequestUseCase',
      'StartOAuthUseCase',
      'CompleteOAuthUseCase',
      'RequestAuthenticator',
      'StateStoreUnavailableError',
      'UserStoreUnavailableError',
      'DatabaseStartError',
      'InvalidAccessRulesError',
    ]) {
      expect(Object.keys(api)).toContain(name);
    }
  });

  it('keeps the container and domain internals private', () => {
    for (const name of ['TOKENS', 'buildContainer', 'evaluateAccess', 'parseIpInto', 'readPath', 'accountKey', 'parseForwarded'])
      expect(Object.keys(api)).not.toContain(name);
  });
});
