import type { OidcArtifacts } from '../../../src/application/oidc/oidc-artifacts';
import { unique, useAdapter, type AdapterFactory, type ContractOptions } from './harness';

const HOUR_S = 3600;

/**
 * The behaviour every OidcArtifacts adapter must show: what the OpenID Connect provider stores
 * (codes, sessions, grants, tokens, interactions) reads back as saved, until it expires, is
 * destroyed or its grant is revoked.
 */
export function oidcArtifactsContract(name: string, makeAdapter: AdapterFactory<OidcArtifacts>, options: ContractOptions = {}): void {
  const followsClock = options.followsClock ?? true;

  describe(`OidcArtifacts contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const store = (): OidcArtifacts => subject.adapter();
    const nowSeconds = (): number => Math.floor(subject.env().clock.now() / 1000);

    it('reads a saved record back exactly, nested values, empty arrays and non-ASCII text included', async () => {
      const id = unique('code');
      const payload = {
        accountId: 'alice',
        scope: 'openid email',
        claims: { id_token: { email: null } },
        resources: [],
        extra: {},
        name: 'Zoë Ünïcode ✓',
        exp: 1_900_000_000,
        ratio: 0.25,
        flag: false,
      };
      await store().save('AuthorizationCode', id, payload, 60);
      expect(await store().find('AuthorizationCode', id)).toEqual(payload);
    });

    it('answers undefined for a record that was never saved', async () => {
      expect(await store().find('AuthorizationCode', unique('nothing'))).toBeUndefined();
    });

    it('keeps kinds apart: the same id under two kinds is two records', async () => {
      const id = unique('shared');
      await store().save('AccessToken', id, { kind: 'access' }, 60);
      await store().save('RefreshToken', id, { kind: 'refresh' }, 60);
      expect(await store().find('AccessToken', id)).toEqual({ kind: 'access' });
      expect(await store().find('RefreshToken', id)).toEqual({ kind: 'refresh' });
      expect(await store().find('Grant', id)).toBeUndefined();
    });

    it('replaces a record saved again under the same kind and id', async () => {
      const id = unique('session');
      await store().save('Session', id, { accountId: 'alice', uid: unique('uid') }, 60);
      await store().save('Session', id, { accountId: 'bob' }, 60);
      expect(await store().find('Session', id)).toEqual({ accountId: 'bob' });
    });

    it('keeps a record saved without an expiry', async () => {
      const id = unique('grant');
      await store().save('Grant', id, { accountId: 'alice' }, undefined);
      expect(await store().find('Grant', id)).toEqual({ accountId: 'alice' });
    });

    it('handles ids longer than any key limit', async () => {
      const id = `${unique('long')}-${'x'.repeat(600)}`;
      await store().save('AccessToken', id, { n: 1 }, 60);
      expect(await store().find('AccessToken', id)).toEqual({ n: 1 });
      expect(await store().find('AccessToken', `${id}y`)).toBeUndefined();
    });

    it('forgets a destroyed record, and destroying an unknown one resolves', async () => {
      const id = unique('token');
      await store().save('AccessToken', id, { accountId: 'alice' }, 60);
      await store().destroy('AccessToken', id);
      expect(await store().find('AccessToken', id)).toBeUndefined();
      await expect(store().destroy('AccessToken', unique('never'))).resolves.toBeUndefined();
    });

    describe('consume', () => {
      it('keeps a consumed record findable, marked with the time it was consumed', async () => {
        const id = unique('code');
        await store().save('AuthorizationCode', id, { accountId: 'alice', grantId: unique('grant') }, 60);
        const at = nowSeconds();
        await store().consume('AuthorizationCode', id, at);
        expect(await store().find('AuthorizationCode', id)).toEqual(expect.objectContaining({ accountId: 'alice', consumed: at }));
      });

      it('does not mark a record that was not consumed', async () => {
        const id = unique('code');
        await store().save('AuthorizationCode', id, { accountId: 'alice' }, 60);
        expect(await store().find('AuthorizationCode', id)).not.toHaveProperty('consumed');
      });

      it('creates nothing when the record does not exist', async () => {
        const id = unique('code');
        await store().consume('AuthorizationCode', id, nowSeconds());
        expect(await store().find('AuthorizationCode', id)).toBeUndefined();
      });

      it('lets exactly one of many concurrent consumers win: the others learn the record was already consumed', async () => {
        const id = unique('code');
        await store().save('AuthorizationCode', id, { accountId: 'alice', grantId: unique('grant') }, 60);
        const at = nowSeconds();
        const outcomes = await Promise.all(Array.from({ length: 8 }, () => store().consume('AuthorizationCode', id, at)));
        expect(outcomes.filter((won) => won)).toHaveLength(1);
        expect(await store().consume('AuthorizationCode', id, at)).toBe(false);
      });

      it('answers false for a record that does not exist, and true for the first consumer of a live one', async () => {
        expect(await store().consume('RefreshToken', unique('rt'), nowSeconds())).toBe(false);
        const id = unique('rt');
        await store().save('RefreshToken', id, { grantId: unique('grant') }, 60);
        expect(await store().consume('RefreshToken', id, nowSeconds())).toBe(true);
      });

      it('lets a record saved again be consumed again (saving clears the mark)', async () => {
        const id = unique('session');
        await store().save('Session', id, { n: 1 }, 60);
        expect(await store().consume('Session', id, nowSeconds())).toBe(true);
        await store().save('Session', id, { n: 2 }, 60);
        expect(await store().consume('Session', id, nowSeconds())).toBe(true);
      });

      it('marks only the record named, not the same id under another kind', async () => {
        const id = unique('rt');
        await store().save('RefreshToken', id, { a: 1 }, 60);
        await store().save('AccessToken', id, { a: 2 }, 60);
        await store().consume('RefreshToken', id, nowSeconds());
        expect(await store().find('AccessToken', id)).toEqual({ a: 2 });
      });
    });

    describe('lookups by uid and by user code', () => {
      it('finds a session by its uid, only under its own kind', async () => {
        const uid = unique('uid');
        const id = unique('session');
        await store().save('Session', id, { uid, accountId: 'alice' }, 60);
        expect(await store().findByUid('Session', uid)).toEqual({ uid, accountId: 'alice' });
        expect(await store().findByUid('Interaction', uid)).toBeUndefined();
        expect(await store().findByUid('Session', unique('other-uid'))).toBeUndefined();
      });

      it('finds a device code by its user code, and no longer once destroyed', async () => {
        const userCode = unique('ABCD-EFGH');
        const id = unique('device');
        await store().save('DeviceCode', id, { userCode, clientId: 'tv' }, 60);
        expect(await store().findByUserCode('DeviceCode', userCode)).toEqual({ userCode, clientId: 'tv' });
        await store().destroy('DeviceCode', id);
        expect(await store().findByUserCode('DeviceCode', userCode)).toBeUndefined();
      });

      it('answers with the record as it is now: a record saved again without the uid is not found by it', async () => {
        const uid = unique('uid');
        const id = unique('session');
        await store().save('Session', id, { uid }, 60);
        await store().save('Session', id, { uid: unique('new-uid') }, 60);
        expect(await store().findByUid('Session', uid)).toBeUndefined();
      });

      it('shows a consumed record found by uid as consumed', async () => {
        const uid = unique('uid');
        const id = unique('session');
        await store().save('Session', id, { uid }, 60);
        const at = nowSeconds();
        await store().consume('Session', id, at);
        expect(await store().findByUid('Session', uid)).toEqual({ uid, consumed: at });
      });
    });

    describe('revokeByGrantId', () => {
      it('removes every record of the grant, of every kind, and leaves other grants alone', async () => {
        const grantId = unique('grant');
        const other = unique('grant');
        const ids = { code: unique('code'), access: unique('at'), refresh: unique('rt'), grant: unique('g'), keep: unique('keep'), free: unique('free') };
        await store().save('AuthorizationCode', ids.code, { grantId }, 60);
        await store().save('AccessToken', ids.access, { grantId }, HOUR_S);
        await store().save('RefreshToken', ids.refresh, { grantId }, 14 * 24 * HOUR_S);
        await store().save('Grant', ids.grant, { grantId }, undefined);
        await store().save('RefreshToken', ids.keep, { grantId: other }, 60);
        await store().save('Session', ids.free, { accountId: 'alice' }, 60);

        await store().revokeByGrantId(grantId);

        expect(await store().find('AuthorizationCode', ids.code)).toBeUndefined();
        expect(await store().find('AccessToken', ids.access)).toBeUndefined();
        expect(await store().find('RefreshToken', ids.refresh)).toBeUndefined();
        expect(await store().find('Grant', ids.grant)).toBeUndefined();
        expect(await store().find('RefreshToken', ids.keep)).toEqual({ grantId: other });
        expect(await store().find('Session', ids.free)).toEqual({ accountId: 'alice' });
      });

      it('removes consumed records of the grant too (a reused code revokes its tokens)', async () => {
        const grantId = unique('grant');
        const id = unique('code');
        await store().save('AuthorizationCode', id, { grantId }, 60);
        await store().consume('AuthorizationCode', id, nowSeconds());
        await store().revokeByGrantId(grantId);
        expect(await store().find('AuthorizationCode', id)).toBeUndefined();
      });

      it('spares a record saved again under another grant since', async () => {
        const first = unique('grant');
        const id = unique('rt');
        await store().save('RefreshToken', id, { grantId: first }, 60);
        await store().save('RefreshToken', id, { grantId: unique('grant') }, 60);
        await store().revokeByGrantId(first);
        expect(await store().find('RefreshToken', id)).toBeDefined();
      });

      it('resolves for a grant that has no records, and a revoked grant gets new records again', async () => {
        await expect(store().revokeByGrantId(unique('grant'))).resolves.toBeUndefined();
        const grantId = unique('grant');
        await store().save('AccessToken', unique('at'), { grantId }, 60);
        await store().revokeByGrantId(grantId);
        const id = unique('at');
        await store().save('AccessToken', id, { grantId }, 60);
        expect(await store().find('AccessToken', id)).toEqual({ grantId });
      });
    });

    if (followsClock) {
      describe('expiry', () => {
        it('keeps a record until its expiry and forgets it after', async () => {
          const { clock } = subject.env();
          const id = unique('code');
          const uid = unique('uid');
          await store().save('Interaction', id, { uid }, 600);
          clock.advance(599_000);
          expect(await store().find('Interaction', id)).toEqual({ uid });
          clock.advance(1_000);
          expect(await store().find('Interaction', id)).toBeUndefined();
          expect(await store().findByUid('Interaction', uid)).toBeUndefined();
        });

        it('does not extend a consumed record past its expiry', async () => {
          const { clock } = subject.env();
          const id = unique('code');
          await store().save('AuthorizationCode', id, { a: 1 }, 60);
          clock.advance(30_000);
          await store().consume('AuthorizationCode', id, nowSeconds());
          clock.advance(30_000);
          expect(await store().find('AuthorizationCode', id)).toBeUndefined();
        });

        it('cannot consume an expired record back to life', async () => {
          const { clock } = subject.env();
          const id = unique('code');
          await store().save('AuthorizationCode', id, { a: 1 }, 60);
          clock.advance(61_000);
          await store().consume('AuthorizationCode', id, nowSeconds());
          expect(await store().find('AuthorizationCode', id)).toBeUndefined();
        });

        it('gives a record saved again the new expiry', async () => {
          const { clock } = subject.env();
          const id = unique('session');
          await store().save('Session', id, { n: 1 }, 60);
          await store().save('Session', id, { n: 2 }, 600);
          clock.advance(120_000);
          expect(await store().find('Session', id)).toEqual({ n: 2 });
        });

        it('keeps a record without an expiry however long it waits', async () => {
          const { clock } = subject.env();
          const id = unique('grant');
          await store().save('Grant', id, { n: 1 }, undefined);
          clock.advance(400 * 24 * 3_600_000);
          expect(await store().find('Grant', id)).toEqual({ n: 1 });
        });
      });
    }
  });
}
