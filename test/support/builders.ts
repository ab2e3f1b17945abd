import type { BasicCredentials } from '../../src/domain/credentials';
import type { Account } from '../../src/domain/account';
import type { Passkey } from '../../src/domain/passkey';

/** Object mother for accounts: `aUser().named('bob').withTotp().build()`. Passwords use the fake hasher's format. */
export class UserBuilder {
  private username = 'alice';
  private password = 'correct horse';
  private totpSecret?: string;
  private groups: string[] = [];
  private email?: string;
  private passkeyOnly = false;

  named(username: string): this {
    this.username = username;
    return this;
  }
  withPassword(password: string): this {
    this.password = password;
    return this;
  }
  withTotp(secret = 'JBSWY3DPEHPK3PXPJBSWY3DP'): this {
    this.totpSecret = secret;
    return this;
  }
  withGroups(...groups: string[]): this {
    this.groups = groups;
    return this;
  }
  /** A users-file account with no password (issue 16). */
  withPasskeyOnly(): this {
    this.passkeyOnly = true;
    return this;
  }
  withEmail(email: string): this {
    this.email = email;
    return this;
  }
  build(): Account {
    return {
      username: this.username,
      email: this.email ?? `${this.username}@example.com`,
      name: this.username,
      groups: this.groups,
      totpSecret: this.totpSecret,
      ...(this.passkeyOnly ? { credentialVersion: 'passkey-only', passkeyOnly: true } : { credentialVersion: `fake:${this.password}` }),
    };
  }
}

export const aUser = (): UserBuilder => new UserBuilder();

/** An HTTP Basic `Authorization` value (RFC 7617, UTF-8). */
/** Basic credentials as the HTTP adapter hands them to the use cases. */
export const basicAuth = (username: string, password: string): BasicCredentials => ({ kind: 'basic', username, password });

/** A stored passkey of `username` (id `cred-<username>` unless given), never used yet. */
export const aPasskeyOf = (username: string, id = `cred-${username}`): Passkey => ({
  id,
  username,
  name: 'Key',
  publicKey: 'pk',
  counter: 0,
  transports: [],
  createdAt: 0,
  lastUsedAt: null,
});
