import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LdapUserStore, type LdapUserStoreSettings } from '../../src/adapters/users/ldap-user-store';
import { UserStoreUnavailableError } from '../../src/application/ports/user-store';
import { optionalModules } from '../../src/composition/optional-modules';
import { FixedClock } from '../support/fakes';
import { LdapWiretap, START_TLS_OID } from '../support/ldap-wiretap';
import { capturedLogger } from '../support/loggers';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd } from '../support/slapd';
import { makeTestCa } from '../support/tls';

const TESS = { uid: 'tess', password: 'tess-Pa55word-in-the-clear?', cn: 'Tess' };
const open: LdapUserStore[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});

function settings(url: string, extra: Partial<LdapUserStoreSettings>): LdapUserStoreSettings {
  return {
    url,
    bindDn: SERVICE_DN,
    bindPassword: SERVICE_PASSWORD,
    baseDn: BASE_DN,
    searchFilter: '(uid=%s)',
    usernameAttribute: 'uid',
    mailAttribute: 'mail',
    nameAttribute: 'displayName',
    groupFilter: '(member=%d)',
    groupNameAttribute: 'cn',
    startTls: true,
    insecure: false,
    nestedGroups: 'off',
    timeoutMs: 2000,
    cacheTtlMs: 0,
    accountCheckIntervalMs: 0,
    ...extra,
  };
}
function storeAt(url: string, extra: Partial<LdapUserStoreSettings> = {}) {
  const { logger, text } = capturedLogger();
  const store = new LdapUserStore(settings(url, extra), 'example.test', new FixedClock(), logger, optionalModules.ldapts());
  open.push(store);
  return { store, log: text };
}

describe('LDAP_START_TLS against a real OpenLDAP whose certificate comes from a throwaway CA', () => {
  let slapd: Slapd;
  let tap: LdapWiretap;
  let otherCa: string;
  const scratch = mkdtempSync(join(tmpdir(), 'portcullis-other-ca-'));

  beforeAll(async () => {
    slapd = await Slapd.start({ tls: true });
    await slapd.addPeople([TESS]);
    tap = await LdapWiretap.start(slapd.port);
    otherCa = readFileSync(makeTestCa(scratch, 'other', 'Some other CA'), 'utf8');
  });
  afterAll(async () => {
    await tap?.close();
    await slapd?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  beforeEach(() => {
    tap.clear();
    tap.refuseStartTls = false;
  });

  it("with LDAP_CA_FILE: searches and binds over StartTLS, and neither the service password nor the person's crosses in the clear", async () => {
    const { store } = storeAt(tap.url, { ca: readFileSync(slapd.caFile, 'utf8') });
    const tess = await store.findAccount('tess');
    expect(tess?.username).toBe('tess');
    expect(tess !== null && (await store.verifyPassword(tess, TESS.password))).toBe(true);
    expect(tess !== null && (await store.verifyPassword(tess, 'wrong-password'))).toBe(false);
    expect(tap.sawInClear(START_TLS_OID)).toBe(true);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
    expect(tap.sawInClear(TESS.password)).toBe(false);
    // The wiretap sees what a plain connection carries: the search filter would be readable.
    expect(tap.sawInClear('(uid=tess)')).toBe(false);
    expect(tap.sawInClear('tess')).toBe(false);
  });

  it('without LDAP_CA_FILE (the system CAs do not know the test CA): refused as unavailable, logged as an unverified certificate naming LDAP_CA_FILE, no password sent', async () => {
    const { store, log } = storeAt(tap.url);
    await expect(store.findAccount('tess')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(log()).toContain("StartTLS failed: the directory's TLS certificate was not verified");
    expect(log()).toContain('set LDAP_CA_FILE');
    expect(tap.sawInClear(START_TLS_OID)).toBe(true);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
  });

  it("with another CA's certificate in LDAP_CA_FILE: refused the same way", async () => {
    const { store, log } = storeAt(tap.url, { ca: otherCa });
    await expect(store.findAccount('tess')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(log()).toContain("the directory's TLS certificate was not verified");
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
  });

  it('checks the name in the certificate: the right CA but a host name the certificate does not carry is refused', async () => {
    // The certificate names 127.0.0.1 and localhost; the same server reached as 127.0.0.2 is someone else.
    const elsewhere = await LdapWiretap.start(slapd.port, '127.0.0.2');
    try {
      const { store, log } = storeAt(elsewhere.url, { ca: readFileSync(slapd.caFile, 'utf8') });
      await expect(store.findAccount('tess')).rejects.toBeInstanceOf(UserStoreUnavailableError);
      expect(log()).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(elsewhere.sawInClear(SERVICE_PASSWORD)).toBe(false);
    } finally {
      await elsewhere.close();
    }
  });

  it('a man in the middle who refuses StartTLS on the connection of a bind gets no password: the login counts as unavailable, not as a wrong password', async () => {
    const { store, log } = storeAt(tap.url, { ca: readFileSync(slapd.caFile, 'utf8') });
    const tess = await store.findAccount('tess');
    expect(tess).not.toBeNull();
    tap.refuseStartTls = true;
    await expect(store.verifyPassword(tess!, TESS.password)).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(tap.sawInClear(TESS.password)).toBe(false);
    expect(log()).toContain('StartTLS failed: the directory refused it');
  });

  it('after slapd restarts, a new connection is upgraded again: logins keep working and nothing crosses in the clear', async () => {
    const { store } = storeAt(tap.url, { ca: readFileSync(slapd.caFile, 'utf8') });
    expect((await store.findAccount('tess'))?.username).toBe('tess');
    await slapd.kill();
    await slapd.run();
    tap.clear();
    const tess = await store.findAccount('tess');
    expect(tess?.username).toBe('tess');
    expect(tess !== null && (await store.verifyPassword(tess, TESS.password))).toBe(true);
    expect(tap.sawInClear(START_TLS_OID)).toBe(true);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
    expect(tap.sawInClear(TESS.password)).toBe(false);
  });

  it('ldaps:// keeps working, with the private CA from LDAP_CA_FILE', async () => {
    const { store } = storeAt(slapd.ldapsUrl, { startTls: false, ca: readFileSync(slapd.caFile, 'utf8') });
    const tess = await store.findAccount('tess');
    expect(tess !== null && (await store.verifyPassword(tess, TESS.password))).toBe(true);
  });
});

describe('LDAP_START_TLS against a real OpenLDAP that has no TLS at all', () => {
  let slapd: Slapd;
  let tap: LdapWiretap;
  beforeAll(async () => {
    slapd = await Slapd.start();
    await slapd.addPeople([TESS]);
    tap = await LdapWiretap.start(slapd.port);
  });
  afterAll(async () => {
    await tap?.close();
    await slapd?.stop();
  });

  it('fails closed: unavailable (503 at login), StartTLS refused in the log, and no bind is ever sent in plain text', async () => {
    const { store, log } = storeAt(tap.url);
    await expect(store.findAccount('tess')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    await expect(store.verifyDecoy('tess', TESS.password)).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(log()).toContain('StartTLS failed: the directory refused it');
    expect(tap.sawInClear(START_TLS_OID)).toBe(true);
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(false);
    expect(tap.sawInClear(SERVICE_DN)).toBe(false);
    expect(tap.sawInClear(TESS.password)).toBe(false);
  });

  it('the same directory without LDAP_START_TLS sends the service password in the clear (what the wiretap sees when nothing protects it)', async () => {
    tap.clear();
    const { store } = storeAt(tap.url, { startTls: false });
    expect((await store.findAccount('tess'))?.username).toBe('tess');
    expect(tap.sawInClear(SERVICE_PASSWORD)).toBe(true);
  });
});
