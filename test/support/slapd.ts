import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attribute, Change, Client } from 'ldapts';
import { accepts, freePort } from './net';
import { issueServerCertificate, makeTestCa } from './tls';

const SLAPD = '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
export const BASE_DN = 'dc=example,dc=test';
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const SERVICE_DN = `cn=portcullis,ou=services,${BASE_DN}`;
export const SERVICE_PASSWORD = 'service-Secret-1';
const ADMIN_PASSWORD = randomBytes(12).toString('hex');

/** A person in the test directory. */
export interface LdapPerson {
  readonly uid: string;
  readonly password: string;
  readonly cn: string;
  readonly displayName?: string;
  readonly mail?: string;
  /** groupOfNames groups (seen through memberOf) */
  readonly groups?: readonly string[];
  /** posixGroup groups (memberUid), found by a group search */
  readonly posixGroups?: readonly string[];
  /** Kept in `description` (the suite points LDAP_TOTP_ATTRIBUTE there). */
  readonly totpSecret?: string;
  /** Store the password as {SSHA} (true) or in plain text. */
  readonly hashed?: boolean;
}

/**
 * A throwaway OpenLDAP server: its own slapd.conf and mdb database under a temporary directory,
 * listening on a free loopback port, started as a child process. It can be killed and restarted on
 * the same port with its data, to test outages.
 */
export class Slapd {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
    readonly tlsPort: number | null,
  ) {}

  get url(): string {
    return `ldap://127.0.0.1:${this.port}`;
  }

  /** `ldaps://` on its own port, with a self-signed certificate; only when started with `tls`. */
  get ldapsUrl(): string {
    if (this.tlsPort === null) throw new Error('this slapd was started without TLS');
    return `ldaps://127.0.0.1:${this.tlsPort}`;
  }

  /** The PEM certificate of the CA that signed this server's certificate; only when started with `tls`. */
  get caFile(): string {
    if (this.tlsPort === null) throw new Error('this slapd was started without TLS');
    return join(this.dir, 'ca.pem');
  }

  /**
   * `tls`: a certificate signed by a throwaway CA ({@link caFile}), offered on `ldaps://` and to
   * StartTLS on `ldap://`. Without it the server has no TLS at all: StartTLS is refused.
   */
  static async start(options: { tls?: boolean } = {}): Promise<Slapd> {
    if (!existsSync(SLAPD) || !existsSync(join(SCHEMA_DIR, 'inetorgperson.schema'))) {
      throw new Error('slapd is not installed: run scripts/ldap-setup.sh (npm run test:ldap does)');
    }
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-slapd-'));
    mkdirSync(join(dir, 'db'));
    if (options.tls === true) {
      // A throwaway CA signs the server's certificate, as a private CA would: clients trust it
      // through LDAP_CA_FILE (the CA's certificate), not by turning verification off.
      makeTestCa(dir, 'ca', 'Portcullis test CA');
      issueServerCertificate(dir, 'ca', join(dir, 'key.pem'), join(dir, 'cert.pem'));
    }
    writeFileSync(join(dir, 'slapd.conf'), config(dir, options.tls === true));
    const server = new Slapd(dir, await freePort(), options.tls === true ? await freePort() : null);
    await server.run();
    await server.admin(async (c) => {
      await c.add(BASE_DN, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' });
      for (const ou of ['people', 'groups', 'services']) await c.add(`ou=${ou},${BASE_DN}`, { objectClass: 'organizationalUnit', ou });
      await c.add(SERVICE_DN, { objectClass: ['organizationalRole', 'simpleSecurityObject'], cn: 'portcullis', userPassword: ssha(SERVICE_PASSWORD) });
    });
    return server;
  }

  /** Starts slapd again (after {@link kill}) on the same port with the same data. */
  async run(): Promise<void> {
    if (this.child !== null) return;
    const urls = this.tlsPort === null ? `${this.url}/` : `${this.url}/ ${this.ldapsUrl}/`;
    const child = spawn(SLAPD, ['-h', urls, '-f', join(this.dir, 'slapd.conf'), '-d', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    this.child = child;
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    const until = Date.now() + 15_000;
    while (!(await accepts(this.port))) {
      if (this.child === null) throw new Error(`slapd exited at start: ${stderr}`);
      if (Date.now() > until) throw new Error(`slapd did not start listening: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Kills slapd at once (an outage); resolves when the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child !== null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs `work` on a connection bound as the directory's root. */
  async admin<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ url: this.url, timeout: 5000, connectTimeout: 5000 });
    try {
      await client.bind(ADMIN_DN, ADMIN_PASSWORD);
      return await work(client);
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }

  /** Adds people and the groups they name (created on first use). */
  async addPeople(people: readonly LdapPerson[]): Promise<void> {
    await this.admin(async (c) => {
      for (const p of people) {
        const attrs: Record<string, string | string[]> = {
          objectClass: ['inetOrgPerson'],
          uid: p.uid,
          cn: p.cn,
          sn: p.cn.split(' ').pop() ?? p.cn,
          userPassword: p.hashed === false ? p.password : ssha(p.password),
        };
        if (p.displayName !== undefined) attrs.displayName = p.displayName;
        if (p.mail !== undefined) attrs.mail = p.mail;
        if (p.totpSecret !== undefined) attrs.description = p.totpSecret;
        await c.add(personDn(p.uid), attrs);
        for (const g of p.groups ?? []) {
          const dn = `cn=${g},ou=groups,${BASE_DN}`;
          if (!(await exists(c, dn))) await c.add(dn, { objectClass: 'groupOfNames', cn: g, member: personDn(p.uid) });
          else await c.modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [personDn(p.uid)] }) }));
        }
        for (const g of p.posixGroups ?? []) {
          const dn = `cn=${g},ou=groups,${BASE_DN}`;
          if (!(await exists(c, dn))) await c.add(dn, { objectClass: 'posixGroup', cn: g, gidNumber: String(5000 + g.length), memberUid: p.uid });
          else await c.modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: 'memberUid', values: [p.uid] }) }));
        }
      }
    });
  }

  /**
   * Creates a groupOfNames group whose members are exactly `members` (people by uid, groups by
   * `group:<cn>`), or replaces the members of an existing one: how nested groups are made.
   */
  async setGroupMembers(cn: string, members: readonly string[]): Promise<void> {
    const dns = members.map((m) => (m.startsWith('group:') ? groupDn(m.slice('group:'.length)) : personDn(m)));
    await this.admin(async (c) => {
      if (!(await exists(c, groupDn(cn)))) await c.add(groupDn(cn), { objectClass: 'groupOfNames', cn, member: dns });
      else await c.modify(groupDn(cn), new Change({ operation: 'replace', modification: new Attribute({ type: 'member', values: dns }) }));
    });
  }

  /** Deletes people (and leaves groups as they are, as an administrator often does). */
  async removePeople(uids: readonly string[]): Promise<void> {
    await this.admin(async (c) => {
      for (const uid of uids) if (await exists(c, personDn(uid))) await c.del(personDn(uid));
    });
  }

  /** Gives a person a new password, as an administrator would (an `{SSHA}` hash). */
  async setPassword(uid: string, password: string): Promise<void> {
    await this.admin((c) =>
      c.modify(personDn(uid), new Change({ operation: 'replace', modification: new Attribute({ type: 'userPassword', values: [ssha(password)] }) })),
    );
  }

  /** Makes a person a member of exactly these groupOfNames groups (created on first use), as seen through memberOf. */
  async setGroups(uid: string, groups: readonly string[]): Promise<void> {
    await this.admin(async (c) => {
      const member = personDn(uid);
      const { searchEntries } = await c.search(`ou=groups,${BASE_DN}`, {
        scope: 'one',
        filter: `(&(objectClass=groupOfNames)(member=${member}))`,
        attributes: ['cn', 'member'],
      });
      for (const g of searchEntries) {
        const members = ([] as unknown[]).concat(g.member ?? []);
        // groupOfNames needs a member: a group that would be left empty is deleted instead.
        if (members.length <= 1) await c.del(g.dn);
        else await c.modify(g.dn, new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [member] }) }));
      }
      for (const g of groups) {
        const dn = `cn=${g},ou=groups,${BASE_DN}`;
        if (!(await exists(c, dn))) await c.add(dn, { objectClass: 'groupOfNames', cn: g, member });
        else await c.modify(dn, new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [member] }) }));
      }
    });
  }

  /** Deletes every person and group, keeping the tree and the service account. */
  async reset(): Promise<void> {
    await this.admin(async (c) => {
      for (const ou of ['people', 'groups']) {
        const { searchEntries } = await c.search(`ou=${ou},${BASE_DN}`, { scope: 'one', attributes: ['1.1'] });
        for (const e of searchEntries) await c.del(e.dn);
      }
    });
  }
}

export const personDn = (uid: string): string => `uid=${uid},ou=people,${BASE_DN}`;
export const groupDn = (cn: string): string => `cn=${cn},ou=groups,${BASE_DN}`;

async function exists(c: Client, dn: string): Promise<boolean> {
  try {
    await c.search(dn, { scope: 'base', attributes: ['1.1'] });
    return true;
  } catch {
    return false;
  }
}

/** `{SSHA}` = base64(SHA-1(password ‖ salt) ‖ salt), as slapd checks it. */
export function ssha(password: string): string {
  const salt = randomBytes(8);
  return `{SSHA}${Buffer.concat([createHash('sha1').update(password).update(salt).digest(), salt]).toString('base64')}`;
}

function config(dir: string, tls: boolean): string {
  return [
    ...['core', 'cosine', 'inetorgperson', 'nis'].map((s) => `include ${SCHEMA_DIR}/${s}.schema`),
    ...(tls ? [`TLSCertificateFile ${join(dir, 'cert.pem')}`, `TLSCertificateKeyFile ${join(dir, 'key.pem')}`] : []),
    'modulepath /usr/lib/ldap',
    'moduleload back_mdb',
    'moduleload memberof',
    `pidfile ${join(dir, 'slapd.pid')}`,
    `argsfile ${join(dir, 'slapd.args')}`,
    'database mdb',
    'maxsize 67108864',
    `suffix "${BASE_DN}"`,
    `rootdn "${ADMIN_DN}"`,
    `rootpw ${ADMIN_PASSWORD}`,
    `directory ${join(dir, 'db')}`,
    'index objectClass,uid,mail,memberUid,member eq',
    'overlay memberof',
    // Anonymous clients may only bind; the service account and people may read what they need.
    'access to attrs=userPassword by self write by anonymous auth by * none',
    'access to * by users read by * none',
    '',
  ].join('\n');
}
