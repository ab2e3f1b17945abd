import { randomBytes } from 'node:crypto';
import type { Client, Entry } from 'ldapts';
import { localAccountEmail, type Account } from '../../domain/account';
import { describeIdentityNameError, parseDisplayName, parseGroupName, parseUsername } from '../../domain/identity-name';
import type { Clock } from '../../application/ports/clock';
import { UserStoreUnavailableError, type UserStore } from '../../application/ports/user-store';
import type { Logger } from '../system/logger';
import { fillFilter } from './ldap-filter';

export interface LdapUserStoreSettings {
  /** `ldap://host[:port]` or `ldaps://host[:port]`. */
  readonly url: string;
  /** Service account for searches; absent means anonymous searches. */
  readonly bindDn?: string;
  readonly bindPassword?: string;
  readonly baseDn: string;
  /** Filter template; `%s` is replaced by the escaped login. */
  readonly searchFilter: string;
  readonly usernameAttribute: string;
  readonly mailAttribute: string;
  /** Display name; `cn` is used when the entry has none. */
  readonly nameAttribute: string;
  /** Attribute of the user entry that lists groups (e.g. `memberOf`); DNs become their first RDN's value. */
  readonly groupAttribute?: string;
  /** Where to search for groups that name the user; absent means no group search. */
  readonly groupBaseDn?: string;
  /** Group filter template: `%s` the username, `%d` the user's DN. */
  readonly groupFilter: string;
  readonly groupNameAttribute: string;
  /** Attribute holding a person's base32 TOTP secret; absent means directory accounts have no TOTP. */
  readonly totpAttribute?: string;
  /** Accept any server certificate (self-signed test servers). */
  readonly insecure: boolean;
  /** Bound on connecting and on each operation, milliseconds. */
  readonly timeoutMs: number;
  /** How long a session check may reuse an earlier answer, milliseconds. */
  readonly cacheTtlMs: number;
}

interface Connection {
  readonly client: Client;
  readonly ready: Promise<void>;
  settling: boolean;
  failed: boolean;
}

interface Known {
  /** The account as the directory last described it; null when it was not found. */
  readonly account: Account | null;
  readonly checkedAt: number;
}

const MAX_LOGIN_LENGTH = 256;
const MAX_PASSWORD_BYTES = 1024;
const MAX_CACHED = 10_000;
/** Past this many TTLs a cached answer is no longer served while a fresh one is fetched. */
const STALE_FACTOR = 10;

/**
 * Accounts in an LDAP directory, through `ldapts`.
 *
 * - A login is found with one search (`LDAP_SEARCH_FILTER`, the value escaped per RFC 4515) over a
 *   long-lived connection bound as the service account; that connection is rebuilt whenever it
 *   drops, and a request that meets a connection that died while idle is retried once on a new one.
 * - A password is checked by binding as the entry found, on a short connection of its own; nothing
 *   about passwords is kept. An empty password is refused before any bind (LDAP would treat it as
 *   an anonymous bind and succeed).
 * - Connecting and every operation are bounded by `timeoutMs`; any failure to reach or use the
 *   directory is a {@link UserStoreUnavailableError}, never "wrong password".
 * - Session checks ({@link currentAccount}) are answered from a cache of up to 10,000 usernames:
 *   an answer younger than `cacheTtlMs` is used as is; an older one is used while a fresh one is
 *   fetched in the background, up to ten TTLs, after which the check waits for the directory; if
 *   the directory is down the last answer stands. So a removed account, a changed password (any
 *   change to the person's entry) or changed groups reach its sessions within about one TTL of
 *   their next request, and an outage does not end anyone's session.
 * - Names are checked before anything decides on them (see identity-name): an entry whose username
 *   or e-mail holds an invisible, control or white-space character (which LDAP's own matching may
 *   ignore, so `al\u200bice` would pass for `alice`) is refused; such a group name, or one with a
 *   comma, is left out; such a display name falls back to `cn`, then the username. Each is logged.
 * - The credential version is the entry's DN and change stamp (`entryCSN`, else `uSNChanged`, else
 *   `modifyTimestamp`): a password change, like any change to the entry, gives a new one. The
 *   password itself is never read.
 * - An unknown name costs what a known name with a wrong password costs ({@link verifyDecoy}): the
 *   group search the entry would have had, then a bind on a short connection of its own, as a DN
 *   that names no entry (so no real account's password-policy counter moves). A bcrypt decoy
 *   instead took ten times as long as a bind and told which names exist.
 */
export class LdapUserStore implements UserStore {
  private connection: Connection | null = null;
  private readonly dns = new WeakMap<Account, string>();
  private readonly known = new Map<string, Known>();
  private readonly lookups = new Map<string, Promise<Account | null>>();
  private reachable = true;
  private closed = false;
  /** Problems with entries already logged, so a re-check every TTL does not repeat them. */
  private readonly reported = new Set<string>();
  // Under the base, so the server treats it like a person's DN, and random, so it names no entry.
  private readonly decoyDn: string;

  constructor(
    private readonly settings: LdapUserStoreSettings,
    private readonly domain: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The `ldapts` library, handed in by composition (optional-modules.ts) only when LDAP is configured. */
    private readonly ldapts: typeof import('ldapts'),
  ) {
    this.decoyDn = `cn=portcullis-decoy-${randomBytes(12).toString('hex')},${settings.baseDn}`;
  }

  async findAccount(login: string): Promise<Account | null> {
    const value = login.trim();
    if (value === '' || value.length > MAX_LOGIN_LENGTH) return null;
    const found = await this.search(value);
    if (found === null) return null;
    this.remember(found.account.username, found.account);
    return found.account;
  }

  async verifyPassword(account: Account, password: string): Promise<boolean> {
    if (password === '' || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
    const dn = this.dns.get(account) ?? (await this.search(account.username))?.dn;
    if (dn === undefined) return false;
    return this.bindAs(dn, password);
  }

  async verifyDecoy(login: string, password: string): Promise<false> {
    if (password === '' || Buffer.byteLength(password) > MAX_PASSWORD_BYTES) return false;
    if (this.settings.groupBaseDn !== undefined) await this.groupSearch(login.trim().slice(0, MAX_LOGIN_LENGTH), this.decoyDn);
    await this.bindAs(this.decoyDn, password);
    return false;
  }

  async currentAccount(username: string): Promise<Account | null> {
    const key = username.toLowerCase();
    const known = this.known.get(key);
    if (known !== undefined) {
      const age = this.clock.now() - known.checkedAt;
      if (age < this.settings.cacheTtlMs) return known.account;
      if (age < this.settings.cacheTtlMs * STALE_FACTOR) {
        this.lookup(key, username).catch(() => undefined);
        return known.account;
      }
      try {
        return await this.lookup(key, username);
      } catch (e) {
        if (e instanceof UserStoreUnavailableError) return known.account;
        throw e;
      }
    }
    return this.lookup(key, username);
  }

  /** Closes the directory connection; the store must not be used afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    if (connection !== null) await connection.client.unbind().catch(() => undefined);
  }

  /** Binds as `dn` on a short connection of its own: true when the password is right. */
  private async bindAs(dn: string, password: string): Promise<boolean> {
    const client = this.newClient();
    try {
      await client.bind(dn, password);
      this.markReachable();
      return true;
    } catch (e) {
      if (e instanceof this.ldapts.InvalidCredentialsError) return false;
      // Other refusals (account locked by a password policy, unwilling to perform) are still a no.
      if (e instanceof this.ldapts.ResultCodeError) return false;
      throw this.unavailable(e);
    } finally {
      client.unbind().catch(() => undefined);
    }
  }

  /** One directory lookup per username at a time; concurrent checks share it. */
  private lookup(key: string, username: string): Promise<Account | null> {
    let pending = this.lookups.get(key);
    if (pending === undefined) {
      pending = this.search(username)
        .then((found) => {
          // The filter may also match e-mails: only the entry whose username this is counts.
          const account = found !== null && found.account.username.toLowerCase() === key ? found.account : null;
          this.remember(key, account);
          return account;
        })
        .finally(() => this.lookups.delete(key));
      this.lookups.set(key, pending);
    }
    return pending;
  }

  private remember(username: string, account: Account | null): void {
    const key = username.toLowerCase();
    this.known.delete(key);
    if (this.known.size >= MAX_CACHED) this.known.delete(this.known.keys().next().value as string);
    this.known.set(key, { account, checkedAt: this.clock.now() });
  }

  /** The one entry `login` names, or null when none (or, ambiguously, several) match. */
  private async search(login: string): Promise<{ account: Account; dn: string } | null> {
    const s = this.settings;
    const attributes = [s.usernameAttribute, s.mailAttribute, s.nameAttribute, 'cn', 'entryCSN', 'uSNChanged', 'modifyTimestamp'];
    if (s.groupAttribute !== undefined) attributes.push(s.groupAttribute);
    if (s.totpAttribute !== undefined) attributes.push(s.totpAttribute);
    const { searchEntries } = await this.withConnection((client) =>
      client.search(s.baseDn, { scope: 'sub', filter: fillFilter(s.searchFilter, { s: login }), attributes, sizeLimit: 2, timeLimit: this.timeLimitSeconds() }),
    );
    if (searchEntries.length !== 1) {
      if (searchEntries.length > 1) this.logger.warn('ldap search matched more than one entry; the login is refused', { filter: s.searchFilter });
      return null;
    }
    const entry = searchEntries[0];
    const username = first(entry, s.usernameAttribute);
    if (username === undefined || username === '') {
      this.logger.warn('ldap entry has no username attribute; the login is refused', { attribute: s.usernameAttribute });
      return null;
    }
    const invalidUsername = parseUsername(username);
    if (!invalidUsername.ok) {
      this.report('ldap entry refused: its username is not a valid identity name', {
        dn: entry.dn,
        attribute: s.usernameAttribute,
        reason: describeIdentityNameError(invalidUsername.error),
      });
      return null;
    }
    const mail = first(entry, s.mailAttribute);
    const parsedMail = mail === undefined ? null : parseUsername(mail);
    if (parsedMail !== null && !parsedMail.ok) {
      this.report('ldap entry refused: its e-mail is not a valid identity name', {
        dn: entry.dn,
        attribute: s.mailAttribute,
        reason: describeIdentityNameError(parsedMail.error),
      });
      return null;
    }
    const found = new Set<string>();
    if (s.groupAttribute !== undefined) for (const value of all(entry, s.groupAttribute)) found.add(groupName(value));
    if (s.groupBaseDn !== undefined) for (const name of await this.groupSearch(username, entry.dn)) found.add(name);
    found.delete('');
    const groups: string[] = [];
    for (const group of found) {
      const parsed = parseGroupName(group);
      if (parsed.ok) groups.push(group);
      else this.report('ldap group left out: its name is not a valid group name', { dn: entry.dn, group, reason: describeIdentityNameError(parsed.error) });
    }
    const name = [first(entry, s.nameAttribute), first(entry, 'cn')].find((n) => n !== undefined && parseDisplayName(n).ok) ?? username;
    // Whatever the attribute holds counts as a second factor: a malformed secret then fails every
    // code (closed), rather than letting the password alone through.
    const totpSecret = s.totpAttribute === undefined ? undefined : first(entry, s.totpAttribute)?.replace(/\s+/g, '').toUpperCase() || undefined;
    const account: Account = {
      username,
      email: (mail ?? localAccountEmail(username, this.domain)).toLowerCase(),
      name,
      groups,
      ...(totpSecret !== undefined ? { totpSecret } : {}),
      // entryCSN (OpenLDAP) changes with every write to the entry, to the microsecond; modifyTimestamp
      // only to the second, so it is the last resort (a password set twice in one second is missed).
      credentialVersion: `ldap:${entry.dn}:${first(entry, 'entryCSN') ?? first(entry, 'uSNChanged') ?? first(entry, 'modifyTimestamp') ?? ''}`,
    };
    this.dns.set(account, entry.dn);
    return { account, dn: entry.dn };
  }

  private async groupSearch(username: string, dn: string): Promise<string[]> {
    const s = this.settings;
    const { searchEntries } = await this.withConnection((client) =>
      client.search(s.groupBaseDn as string, {
        scope: 'sub',
        filter: fillFilter(s.groupFilter, { s: username, d: dn }),
        attributes: [s.groupNameAttribute],
        sizeLimit: 1000,
        timeLimit: this.timeLimitSeconds(),
      }),
    );
    return searchEntries.map((g) => first(g, s.groupNameAttribute) ?? groupName(g.dn));
  }

  /**
   * Runs `operation` on the service connection. A connection that had been working and fails is
   * replaced and the operation tried once more (the server restarted while we were idle); any other
   * failure means the directory is unavailable.
   */
  private async withConnection<T>(operation: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const connection = this.serviceConnection();
      const wasEstablished = !connection.settling;
      try {
        await connection.ready;
        const result = await operation(connection.client);
        this.markReachable();
        return result;
      } catch (e) {
        this.discard(connection);
        // A directory that answered with an error, or did not answer in time, gets no second wait.
        const retry = !(e instanceof this.ldapts.ResultCodeError) && !/timed? ?out/i.test(String((e as Error)?.message));
        if (attempt === 0 && wasEstablished && retry && !this.closed) continue;
        throw this.unavailable(e);
      }
    }
  }

  private serviceConnection(): Connection {
    const current = this.connection;
    if (current !== null && !current.failed && (current.settling || current.client.isConnected)) return current;
    if (current !== null) this.discard(current);
    const client = this.newClient();
    // Binding with an empty DN and password is an anonymous bind; it also opens the connection once,
    // so concurrent first requests do not race to connect.
    const connection: Connection = { client, ready: Promise.resolve(), settling: true, failed: false };
    (connection as { ready: Promise<void> }).ready = client.bind(this.settings.bindDn ?? '', this.settings.bindPassword ?? '').finally(() => {
      connection.settling = false;
    });
    connection.ready.catch(() => undefined);
    this.connection = connection;
    return connection;
  }

  private discard(connection: Connection): void {
    connection.failed = true;
    if (this.connection === connection) this.connection = null;
    connection.client.unbind().catch(() => undefined);
  }

  private newClient(): Client {
    const s = this.settings;
    return new this.ldapts.Client({
      url: s.url,
      timeout: s.timeoutMs,
      connectTimeout: s.timeoutMs,
      tlsOptions: s.url.startsWith('ldaps:') ? { rejectUnauthorized: !s.insecure, minVersion: 'TLSv1.2' } : undefined,
      strictDN: false,
    });
  }

  private timeLimitSeconds(): number {
    return Math.max(1, Math.ceil(this.settings.timeoutMs / 1000));
  }

  /** Logs a problem with directory data once (until 1,000 different ones were logged). */
  private report(message: string, fields: Record<string, string>): void {
    const key = `${message}\0${JSON.stringify(fields)}`;
    if (this.reported.has(key)) return;
    if (this.reported.size >= 1000) this.reported.clear();
    this.reported.add(key);
    this.logger.warn(message, fields);
  }

  private markReachable(): void {
    if (!this.reachable) {
      this.reachable = true;
      this.logger.info('ldap directory reachable again', { url: this.settings.url });
    }
  }

  /** The error to throw; the first failure of a run of them is logged, without any credential. */
  private unavailable(cause: unknown): UserStoreUnavailableError {
    if (this.reachable) {
      this.reachable = false;
      this.logger.warn('ldap directory unavailable; logins through it answer 503 until it is back', {
        url: this.settings.url,
        reason: reasonOf(cause, this.ldapts),
      });
    }
    return new UserStoreUnavailableError('ldap', { cause });
  }
}

function values(entry: Entry, attribute: string): unknown {
  const wanted = attribute.toLowerCase();
  for (const key of Object.keys(entry)) if (key.toLowerCase() === wanted) return entry[key];
  return undefined;
}

function all(entry: Entry, attribute: string): string[] {
  const v = values(entry, attribute);
  const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

function first(entry: Entry, attribute: string): string | undefined {
  return all(entry, attribute)[0];
}

/** `cn=admins,ou=groups,dc=example,dc=test` → `admins`; a value that is no DN stays as it is. */
export function groupName(value: string): string {
  let rdn = '';
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '\\' && i + 1 < value.length) {
      rdn += ch + value[i + 1];
      i += 1;
    } else if (ch === ',' || ch === '+') break;
    else rdn += ch;
  }
  const eq = rdn.indexOf('=');
  if (eq <= 0) return value.trim();
  return unescapeDnValue(rdn.slice(eq + 1).trim());
}

function unescapeDnValue(v: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < v.length; i += 1) {
    if (v[i] === '\\' && /^[0-9a-fA-F]{2}$/.test(v.slice(i + 1, i + 3))) {
      bytes.push(parseInt(v.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (v[i] === '\\' && i + 1 < v.length) {
      bytes.push(...Buffer.from(v[i + 1]));
      i += 1;
    } else bytes.push(...Buffer.from(v[i]));
  }
  return Buffer.from(bytes).toString('utf8');
}

function reasonOf(e: unknown, ldapts: typeof import('ldapts')): string {
  if (e instanceof ldapts.ResultCodeError) return `${e.name} (result code ${e.code})`;
  if (e instanceof Error) return ((e as NodeJS.ErrnoException).code ?? e.message.split('\n')[0]).slice(0, 200);
  return 'unknown error';
}
