import { randomBytes } from 'node:crypto';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Client, Entry } from 'ldapts';
import { localAccountEmail, type Account } from '../../domain/account';
import { describeIdentityNameError, parseDisplayName, parseGroupName, parseUsername } from '../../domain/identity-name';
import type { Clock } from '../../application/ports/clock';
import type { DirectoryAccounts } from '../../application/sessions/directory-accounts';
import { UserStoreUnavailableError, type UserStore } from '../../application/ports/user-store';
import type { Logger } from '../system/logger';
import type { LdapSettings } from '../../config/ldap';
import { escapeFilterValue, fillFilter } from '../../domain/ldap-filter';

/** How group memberships that come through other groups are found (`LDAP_NESTED_GROUPS`). */
export type LdapNestedGroups = LdapSettings['nestedGroups'];

/** The directory as configured (src/config/ldap.ts), and the bounds of the `recursive` group walk. */
export interface LdapUserStoreSettings extends LdapSettings {
  /** Bounds of the `recursive` walk; absent: {@link MAX_NESTING_DEPTH} levels, {@link MAX_GROUPS} groups (tests make them small). */
  readonly nestingLimits?: { readonly depth: number; readonly groups: number };
  /** Bounds of the admin console's list; absent: {@link MAX_LISTED} people in pages of 200 (tests make them small). */
  readonly listLimits?: { readonly people: number; readonly pageSize: number };
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
/** Most people the admin console's list reads from the directory (issue 36). */
export const MAX_LISTED = 1000;
/** Entries asked for per page of that list (the simple paged results control, RFC 2696). */
const LIST_PAGE_SIZE = 200;
/** Most groups one group search may return, and most groups one person may get through nesting. */
export const MAX_GROUPS = 1000;
/** Levels of groups-in-groups the `recursive` walk follows above a person's own groups. */
export const MAX_NESTING_DEPTH = 8;
/** Usernames asked about in one search of the account check (keeps each filter a sane size). */
export const ACCOUNTS_PER_CHECK = 50;
/** Group DNs asked about in one search of the `recursive` walk (keeps each filter a sane size). */
const DNS_PER_SEARCH = 50;
/** Active Directory's LDAP_MATCHING_RULE_IN_CHAIN: `member` followed through nested groups by the server. */
export const AD_IN_CHAIN_RULE = '1.2.840.113556.1.4.1941';

/**
 * StartTLS did not give a verified, encrypted connection: the server refused the upgrade, has no
 * TLS, or showed a certificate that failed verification. Nothing was sent on the connection but
 * the StartTLS request itself.
 */
class StartTlsFailed extends Error {
  constructor(
    readonly reason: string,
    options: { cause: unknown },
  ) {
    super(`StartTLS failed: ${reason}`, options);
    this.name = 'StartTlsFailed';
  }
}

/** The password modify extended operation (RFC 3062). */
export const PASSWORD_MODIFY_OID = '1.3.6.1.4.1.4203.1.11.1';

/**
 * The request value of RFC 3062: `SEQUENCE { userIdentity [0] OCTET STRING, oldPasswd [1] OCTET
 * STRING, newPasswd [2] OCTET STRING }`, each field context-specific and primitive (0x80-0x82).
 */
export function passwordModifyRequest(ldapts: Pick<typeof import('ldapts'), 'BerWriter'>, dn: string, oldPassword: string, newPassword: string): Buffer {
  const writer = new ldapts.BerWriter();
  writer.startSequence(0x30);
  writer.writeString(dn, 0x80);
  writer.writeString(oldPassword, 0x81);
  writer.writeString(newPassword, 0x82);
  writer.endSequence();
  return writer.buffer;
}

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
 *   change to the person's entry) or changed groups (nested ones included: each check walks them
 *   again) reach its sessions within about one TTL of their next request, and an outage does not
 *   end anyone's session.
 * - With `startTls`, every connection (the service one, each bind's) is upgraded before its bind,
 *   with the certificate verified; if the upgrade is refused or fails, the operation fails
 *   (the directory counts as unavailable) and no bind is sent. A client never reconnects on its
 *   own (ldapts would, in plain text, after a drop): a dropped connection is replaced by a new one
 *   that is upgraded again.
 * - Nested groups: `ad` asks Active Directory for every group that has the person as a member at
 *   any depth (LDAP_MATCHING_RULE_IN_CHAIN); `recursive` starts from the person's own groups and
 *   asks, level by level, which groups have those as `member`/`uniqueMember`: at most
 *   {@link MAX_NESTING_DEPTH} levels and {@link MAX_GROUPS} groups, each group once (a cycle
 *   ends there). Past a bound the groups found so far are kept and the cut is logged once:
 *   groups only ever grant access, so fewer groups never let anyone in who should not be.
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
export class LdapUserStore implements UserStore, DirectoryAccounts {
  private connection: Connection | null = null;
  private readonly dns = new WeakMap<Account, string>();
  /** Each ldap:// client's TCP socket: after StartTLS, ldapts no longer notices it closing (see {@link alive}). */
  private readonly sockets = new WeakMap<Client, Socket>();
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
    await this.groupsOf(login.trim().slice(0, MAX_LOGIN_LENGTH), this.decoyDn, [], true);
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

  /**
   * Of `usernames`, those no entry matches any more (deleted, or no longer matched by
   * `LDAP_SEARCH_FILTER`: how a directory says "disabled"): one search per
   * {@link ACCOUNTS_PER_CHECK} names, the filter filled for each and joined with OR. Only an entry
   * whose username attribute is the name counts (the filter may also match e-mails). The names
   * come back as given (every spelling whose name is absent). Each absent name this process had
   * cached is remembered as gone, so it refuses its sessions and tokens at once; a present one is
   * not touched (its cached account stays until its own re-check). Any failure rejects with
   * {@link UserStoreUnavailableError} before anything is remembered: an outage removes no one.
   */
  async absent(usernames: readonly string[]): Promise<string[]> {
    const s = this.settings;
    const names = [...new Set(usernames.map((u) => u.toLowerCase()).filter((u) => u !== '' && u.length <= MAX_LOGIN_LENGTH))];
    const gone = new Set<string>();
    for (let i = 0; i < names.length; i += ACCOUNTS_PER_CHECK) {
      const chunk = names.slice(i, i + ACCOUNTS_PER_CHECK);
      const filters = chunk.map((u) => fillFilter(s.searchFilter, { s: u }));
      const filter = filters.length === 1 ? filters[0] : `(|${filters.join('')})`;
      const { searchEntries } = await this.withConnection((client) =>
        client.search(s.baseDn, { scope: 'sub', filter, attributes: [s.usernameAttribute], timeLimit: this.timeLimitSeconds() }),
      );
      const present = new Set(searchEntries.flatMap((entry) => all(entry, s.usernameAttribute).map((u) => u.toLowerCase())));
      for (const u of chunk) if (!present.has(u)) gone.add(u);
    }
    // Only answers this process already cached change: an uncached name is looked up afresh when
    // asked, and remembering every absent name (OAuth sessions' e-mails among them) would push real
    // accounts out of the bounded cache.
    for (const u of gone) if (this.known.has(u)) this.remember(u, null);
    // Each spelling asked about: access tokens keep the username's case, the session index does not.
    return usernames.filter((u) => gone.has(u.toLowerCase()));
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
      await this.secure(client);
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

  /**
   * Changes the person's password with the password modify extended operation (RFC 3062), on a
   * short connection bound as the person with `current`: the directory applies its own access
   * rules and password policy to the person, never the service account's rights. The request names
   * the entry (userIdentity), the old and the new password; the server hashes and stores it. After
   * a change the entry is read again, so session checks compare against the new change stamp at
   * once (the cache would otherwise keep the old one for up to LDAP_CACHE_TTL).
   */
  async changePassword(account: Account, current: string, next: string): Promise<'changed' | 'invalid_credentials' | 'refused'> {
    if (current === '' || Buffer.byteLength(current) > MAX_PASSWORD_BYTES || Buffer.byteLength(next) > MAX_PASSWORD_BYTES) return 'invalid_credentials';
    const dn = this.dns.get(account) ?? (await this.search(account.username))?.dn;
    if (dn === undefined) return 'invalid_credentials';
    const client = this.newClient();
    try {
      await this.secure(client);
      try {
        await client.bind(dn, current);
      } catch (e) {
        if (e instanceof this.ldapts.ResultCodeError) return 'invalid_credentials';
        throw e;
      }
      try {
        await client.exop(PASSWORD_MODIFY_OID, passwordModifyRequest(this.ldapts, dn, current, next));
      } catch (e) {
        // Constraint violation (a password policy), insufficient access, unwilling to perform: refused.
        if (e instanceof this.ldapts.ResultCodeError) return 'refused';
        throw e;
      }
      this.markReachable();
    } catch (e) {
      throw this.unavailable(e);
    } finally {
      client.unbind().catch(() => undefined);
    }
    const found = await this.search(account.username);
    this.remember(account.username, found?.account ?? null);
    return 'changed';
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
  /**
   * The people of the directory for the admin console (issue 36): the login filter with every
   * `%s` a wildcard, read in pages, at most `limit` of them (`truncated`: there were more). Each
   * is described as at login (groups included); entries a login would refuse are left out.
   * Throws UserStoreUnavailableError when the directory cannot be reached.
   */
  async listAccounts(): Promise<{ accounts: Account[]; truncated: boolean }> {
    const s = this.settings;
    const { people: limit, pageSize } = s.listLimits ?? { people: MAX_LISTED, pageSize: LIST_PAGE_SIZE };
    const filter = s.searchFilter.replace(/%([sd%])/g, (_m, key: string) => (key === '%' ? '%' : '*'));
    const entries = await this.withConnection(async (client) => {
      const found: Entry[] = [];
      const pages = client.searchPaginated(s.baseDn, {
        scope: 'sub',
        filter,
        attributes: this.personAttributes(),
        sizeLimit: limit + 1,
        timeLimit: this.timeLimitSeconds(),
        paged: { pageSize: Math.min(pageSize, limit + 1) },
      });
      for await (const page of pages) {
        found.push(...page.searchEntries);
        if (found.length > limit) break;
      }
      return found;
    });
    const accounts: Account[] = [];
    for (const entry of entries.slice(0, limit)) {
      const described = await this.accountFrom(entry);
      if (described !== null) accounts.push(described.account);
    }
    return { accounts, truncated: entries.length > limit };
  }

  private personAttributes(): string[] {
    const s = this.settings;
    const attributes = [s.usernameAttribute, s.mailAttribute, s.nameAttribute, 'cn', 'entryCSN', 'uSNChanged', 'modifyTimestamp'];
    if (s.groupAttribute !== undefined) attributes.push(s.groupAttribute);
    if (s.totpAttribute !== undefined) attributes.push(s.totpAttribute);
    return attributes;
  }

  private async search(login: string): Promise<{ account: Account; dn: string } | null> {
    const s = this.settings;
    const attributes = this.personAttributes();
    const { searchEntries } = await this.withConnection((client) =>
      client.search(s.baseDn, { scope: 'sub', filter: fillFilter(s.searchFilter, { s: login }), attributes, sizeLimit: 2, timeLimit: this.timeLimitSeconds() }),
    );
    if (searchEntries.length !== 1) {
      if (searchEntries.length > 1) this.logger.warn('ldap search matched more than one entry; the login is refused', { filter: s.searchFilter });
      return null;
    }
    return this.accountFrom(searchEntries[0]);
  }

  /** A person's entry as an account (groups looked up as configured); null when a login would refuse it. */
  private async accountFrom(entry: Entry): Promise<{ account: Account; dn: string } | null> {
    const s = this.settings;
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
    const found = new Set(await this.groupsOf(username, entry.dn, s.groupAttribute === undefined ? [] : all(entry, s.groupAttribute), false));
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

  /**
   * The names of a person's groups (not yet checked as names): from `listed` (the values of the
   * person's group attribute), a group search, and nesting as configured. `decoy` makes the calls
   * an unknown name should cost: those of a person with groups.
   */
  private async groupsOf(username: string, dn: string, listed: readonly string[], decoy: boolean): Promise<string[]> {
    const s = this.settings;
    const names = listed.map(groupName);
    const groupDns = listed.filter((value) => value.includes('='));
    if (s.nestedGroups === 'ad') {
      const groups = await this.searchGroups(s.groupBaseDn ?? s.baseDn, inChainFilter(dn));
      // The server stops at the size limit without saying which groups it left out.
      if (groups.length >= MAX_GROUPS && !decoy) this.report(`ldap nested groups past ${MAX_GROUPS} groups were left out`, { dn });
      names.push(...groups.map((g) => g.name));
      return names;
    }
    if (s.groupBaseDn !== undefined) {
      for (const g of await this.searchGroups(s.groupBaseDn, fillFilter(s.groupFilter, { s: username, d: dn }))) {
        names.push(g.name);
        groupDns.push(g.dn);
      }
    }
    if (s.nestedGroups === 'recursive') {
      // A decoy walks one level up from a group that does not exist, as a person in one group would.
      const start = decoy ? [`cn=portcullis-decoy-group-${randomBytes(12).toString('hex')},${s.groupBaseDn ?? s.baseDn}`] : groupDns;
      names.push(...(await this.parentGroups(start, dn)));
    }
    return names;
  }

  private async searchGroups(base: string, filter: string, limit = MAX_GROUPS): Promise<{ name: string; dn: string }[]> {
    const s = this.settings;
    const { searchEntries } = await this.withConnection((client) =>
      client.search(base, { scope: 'sub', filter, attributes: [s.groupNameAttribute], sizeLimit: limit, timeLimit: this.timeLimitSeconds() }),
    );
    return searchEntries.map((g) => ({ name: first(g, s.groupNameAttribute) ?? groupName(g.dn), dn: g.dn }));
  }

  /**
   * The groups that contain `start` (group DNs) directly or through further groups, found level by
   * level: one search per level (per {@link DNS_PER_SEARCH} DNs), each group visited once, at most
   * {@link MAX_NESTING_DEPTH} levels and {@link MAX_GROUPS} groups in all.
   */
  private async parentGroups(start: readonly string[], personDn: string): Promise<string[]> {
    const s = this.settings;
    const base = s.groupBaseDn ?? s.baseDn;
    const maxDepth = s.nestingLimits?.depth ?? MAX_NESTING_DEPTH;
    const maxGroups = s.nestingLimits?.groups ?? MAX_GROUPS;
    const seen = new Set(start.map(dnKey));
    const names: string[] = [];
    let frontier = [...new Map(start.map((dn) => [dnKey(dn), dn])).values()];
    let cut: string | null = null;
    for (let level = 1; frontier.length > 0 && cut === null; level += 1) {
      if (level > maxDepth) {
        cut = `deeper than ${maxDepth} levels`;
        break;
      }
      const next: string[] = [];
      for (let i = 0; i < frontier.length && cut === null; i += DNS_PER_SEARCH) {
        const chunk = frontier.slice(i, i + DNS_PER_SEARCH);
        const filter = `(|${chunk.map((dn) => `(member=${escapeFilterValue(dn)})(uniqueMember=${escapeFilterValue(dn)})`).join('')})`;
        // One more than the bound: more distinct groups than that means the bound is passed.
        for (const group of await this.searchGroups(base, filter, maxGroups + 1)) {
          const key = dnKey(group.dn);
          // Seen before: a cycle (a group inside itself, at any depth) or two paths to one group.
          if (seen.has(key)) continue;
          if (seen.size >= maxGroups) {
            cut = `past ${maxGroups} groups`;
            break;
          }
          seen.add(key);
          names.push(group.name);
          next.push(group.dn);
        }
      }
      frontier = next;
    }
    if (cut !== null) this.report(`ldap nested groups ${cut} were left out`, { dn: personDn });
    return names;
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
        const retry = !(e instanceof this.ldapts.ResultCodeError) && !(e instanceof StartTlsFailed) && !/timed? ?out/i.test(String((e as Error)?.message));
        if (attempt === 0 && wasEstablished && retry && !this.closed) continue;
        throw this.unavailable(e);
      }
    }
  }

  private serviceConnection(): Connection {
    const current = this.connection;
    if (current !== null && !current.failed && (current.settling || this.alive(current.client))) return current;
    if (current !== null) this.discard(current);
    const client = this.newClient();
    // Binding with an empty DN and password is an anonymous bind; it also opens the connection once,
    // so concurrent first requests do not race to connect.
    const connection: Connection = { client, ready: Promise.resolve(), settling: true, failed: false };
    (connection as { ready: Promise<void> }).ready = this.secure(client)
      .then(() => client.bind(this.settings.bindDn ?? '', this.settings.bindPassword ?? ''))
      .finally(() => {
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

  /**
   * Whether a client's connection is still up. ldapts watches the socket it first opened; after
   * StartTLS it talks over the TLS socket and never learns that the connection closed (its
   * `isConnected` stays true and the next request waits out its timeout), so the TCP socket is
   * asked too.
   */
  private alive(client: Client): boolean {
    return client.isConnected && this.sockets.get(client)?.destroyed !== true;
  }

  private newClient(): Client {
    const s = this.settings;
    let connects = 0;
    const client: Client = new this.ldapts.Client({
      url: s.url,
      timeout: s.timeoutMs,
      connectTimeout: s.timeoutMs,
      tlsOptions: s.url.startsWith('ldaps:') ? this.tlsOptions() : undefined,
      strictDN: false,
      // ldapts reconnects a dropped connection by itself on the next operation, in plain text and
      // without StartTLS: a bind could then cross unencrypted. A StartTLS client gets one
      // connection; any later one is refused, and the store builds a new, upgraded client instead.
      createConnection: ((port: number, host: string) => {
        connects += 1;
        // Thrown inside ldapts's connect promise: that operation fails, no socket is opened.
        if (s.startTls && connects > 1) throw new Error('the StartTLS connection dropped: not reconnecting in plain text');
        const socket = netConnect(port, host);
        this.sockets.set(client, socket);
        return socket;
      }) as typeof netConnect,
    });
    return client;
  }

  /** Certificates verified (unless LDAP_INSECURE) against LDAP_CA_FILE or the system's CAs. A new object each time: ldapts mutates it. */
  private tlsOptions(): ConnectionOptions {
    const s = this.settings;
    const host = new URL(s.url).hostname.replace(/^\[|\]$/g, '');
    return {
      rejectUnauthorized: !s.insecure,
      minVersion: 'TLSv1.2',
      host,
      // SNI carries host names only, never addresses.
      ...(isIP(host) === 0 ? { servername: host } : {}),
      ...(s.ca !== undefined ? { ca: s.ca } : {}),
    };
  }

  /** With StartTLS, upgrades a new client's connection before anything else is sent on it; throws {@link StartTlsFailed}. */
  private async secure(client: Client): Promise<void> {
    if (!this.settings.startTls) return;
    try {
      await client.startTLS(this.tlsOptions());
    } catch (e) {
      throw new StartTlsFailed(
        e instanceof this.ldapts.ResultCodeError
          ? `the directory refused it (${e.name}, result code ${e.code}): does it have TLS configured?`
          : reasonOf(e, this.ldapts),
        { cause: e },
      );
    }
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

/** Node's codes for a certificate that failed verification (tls.TLSSocket#authorizationError and checkServerIdentity). */
const CERTIFICATE_ERRORS = /^(UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)/;

function reasonOf(e: unknown, ldapts: typeof import('ldapts')): string {
  if (e instanceof StartTlsFailed) return e.message;
  if (e instanceof ldapts.ResultCodeError) return `${e.name} (result code ${e.code})`;
  // Not `instanceof Error`: errors from Node's own modules may come from another realm (a VM context).
  if (typeof e === 'object' && e !== null && typeof (e as Error).message === 'string') {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && CERTIFICATE_ERRORS.test(code)) {
      return `the directory's TLS certificate was not verified (${code}): set LDAP_CA_FILE to the certificate of the CA that signed it`;
    }
    return (code ?? (e as Error).message.split('\n')[0]).slice(0, 200);
  }
  return 'unknown error';
}

/** `(member:1.2.840.113556.1.4.1941:=<dn>)`: Active Directory walks `member` through nested groups itself. */
export function inChainFilter(personDn: string): string {
  return `(member:${AD_IN_CHAIN_RULE}:=${escapeFilterValue(personDn)})`;
}

/** A DN compared loosely (case, blanks around separators), to visit each group once. */
function dnKey(dn: string): string {
  return dn.replace(/\s*([,=+])\s*/g, '$1').toLowerCase();
}
