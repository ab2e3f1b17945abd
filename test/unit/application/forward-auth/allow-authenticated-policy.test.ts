import { AllowAuthenticatedPolicy } from '../../../../src/application/forward-auth/allow-authenticated-policy';
import { identityOf } from '../../../../src/domain/session';
import { aUser } from '../../../support/builders';

describe('AllowAuthenticatedPolicy', () => {
  const policy = new AllowAuthenticatedPolicy();

  it('lets every proven identity through', () => {
    expect(policy.decide({ original: null, identity: identityOf(aUser().build(), 'username', false), ip: '192.0.2.1' })).toEqual({ kind: 'allow' });
  });

  it('asks anonymous callers to log in', () => {
    expect(policy.decide({ original: null, identity: null, ip: '192.0.2.1' })).toEqual({ kind: 'login_required' });
  });
});
