import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { optionalModules } from '../../../src/composition/optional-modules';
import { parseUsersFile, type UsersFileEntry } from '../../../src/config/users-file';
import { UsersFileEditor } from '../../../src/adapters/users/users-file-editor';
import type { AccountChange } from '../../../src/application/ports/account-editor';

const HASH = '$2b$04$abcdefghijklmnopqrstuuJ6lL2Tq3Jk0WcC8nO5s4yX1a2b3c4dE';
const NEW_HASH = '$2b$05$abcdefghijklmnopqrstuuJ6lL2Tq3Jk0WcC8nO5s4yX1a2b3c4dE';
const FIXTURES = join(__dirname, '../../fixtures/users-files');

function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

function entries(text: string, name: string): UsersFileEntry[] {
  const parsed = parseUsersFile(text, name, optionalModules.yaml);
  expect(parsed.problems).toEqual([]);
  return parsed.entries;
}

function entry(text: string, name: string, username: string): UsersFileEntry | undefined {
  return entries(text, name).find((e) => e.username === username);
}

/** The lines of `after` that are not in `before`, and those of `before` gone from `after` (a crude diff). */
function changedLines(before: string, after: string): { added: string[]; removed: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return { removed: a.slice(head, a.length - tail), added: b.slice(head, b.length - tail) };
}

describe('UsersFileEditor', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-editor-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function setUp(name: string, text: string, afterWrite?: () => Promise<unknown>): { path: string; editor: UsersFileEditor; read: () => string } {
    const path = join(dir, name);
    writeFileSync(path, text);
    return { path, editor: new UsersFileEditor(path, optionalModules.yaml, { afterWrite }), read: () => readFileSync(path, 'utf8') };
  }

  async function apply(name: string, text: string, change: AccountChange): Promise<string> {
    const { editor, read } = setUp(name, text);
    const result = await editor.edit(change);
    expect(result).toEqual({ ok: true, value: { version: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    return read();
  }

  describe('the YAML form with comments and unusual spacing', () => {
    const text = fixture('commented.yaml.txt');

    it('creates a passkey-only person after the last entry, in the file’s indentation', async () => {
      const after = await apply('users.yml', text, {
        kind: 'create',
        username: 'erin',
        name: 'Erin O’Neil',
        email: 'erin@example.com',
        groups: ['staff', 'on call'],
      });
      expect(changedLines(text, after)).toEqual({
        removed: [],
        added: [
          '    -   username: erin',
          '        name: "Erin O’Neil"',
          '        email: erin@example.com',
          '        groups: [staff, on call]',
          '        passkey_only: true',
        ],
      });
      expect(after.startsWith(text.slice(0, text.indexOf('        disabled: yes   # left in 2025\n') + 38))).toBe(true);
      expect(after.endsWith('        passkey_only: true\n\n# end of file\n')).toBe(true);
      expect(entry(after, 'users.yml', 'erin')).toEqual({
        username: 'erin',
        hash: '',
        passkeyOnly: true,
        name: 'Erin O’Neil',
        email: 'erin@example.com',
        groups: ['staff', 'on call'],
      });
    });

    it('refuses a username that exists, whatever its case', async () => {
      const { editor, read } = setUp('users.yml', text);
      expect(await editor.edit({ kind: 'create', username: 'ALICE' })).toEqual({ ok: false, error: { code: 'user_exists' } });
      expect(read()).toBe(text);
    });

    it('updates only the fields given, keeping the key’s comment and the rest byte for byte', async () => {
      const after = await apply('users.yml', text, { kind: 'update', username: 'alice', name: 'Alice P. Liddell', groups: ['admins'] });
      expect(changedLines(text, after)).toEqual({
        removed: [
          "        name: 'Alice Liddell'",
          '        email: alice@example.com',
          '        groups:',
          '          - admins',
          '          - staff   # since 2024',
        ],
        added: ['        name: Alice P. Liddell', '        email: alice@example.com', '        groups: [admins]'],
      });
      expect(entry(after, 'users.yml', 'alice')).toMatchObject({ name: 'Alice P. Liddell', groups: ['admins'], email: 'alice@example.com', hash: HASH });
    });

    it('adds a missing field after the entry’s last line, and removes one given empty', async () => {
      const added = await apply('users.yml', text, { kind: 'update', username: 'bob', email: 'bob@example.com' });
      expect(changedLines(text, added)).toEqual({ removed: [], added: ['        email: bob@example.com'] });
      expect(added).toContain('        totp_secret: JBSWY3DPEHPK3PXPJBSWY3DP\n        email: bob@example.com\n\n    # A passkey-only');
      const removed = await apply('users2.yml', text, { kind: 'update', username: 'bob', groups: [] });
      expect(changedLines(text, removed)).toEqual({ removed: ['        groups: [staff,   ops]'], added: [] });
      expect(entry(removed, 'users.yml', 'bob')?.groups).toBeUndefined();
    });

    it('replaces a flow list in place', async () => {
      const after = await apply('users.yml', text, { kind: 'update', username: 'bob', groups: ['ops', 'dev'] });
      expect(changedLines(text, after)).toEqual({ removed: ['        groups: [staff,   ops]'], added: ['        groups: [ops, dev]'] });
    });

    it('disables with the mark, and enables by taking it off (a person without password becomes passkey-only)', async () => {
      const disabled = await apply('users.yml', text, { kind: 'disable', username: 'bob' });
      expect(changedLines(text, disabled)).toEqual({ removed: [], added: ['        disabled: true'] });
      expect(entry(disabled, 'users.yml', 'bob')?.disabled).toBe(true);

      const enabled = await apply('users2.yml', text, { kind: 'enable', username: 'dave' });
      expect(changedLines(text, enabled)).toEqual({ removed: ['        disabled: yes   # left in 2025'], added: ['        passkey_only: true'] });
      expect(entry(enabled, 'users.yml', 'dave')).toEqual({ username: 'dave', hash: '', passkeyOnly: true });
    });

    it('deletes an entry’s lines and nothing else', async () => {
      const after = await apply('users.yml', text, { kind: 'delete', username: 'bob' });
      expect(after).toBe(text.replace(/ {4}- {3}username: bob\n( {8}.*\n){3}/, ''));
      expect(entries(after, 'users.yml').map((e) => e.username)).toEqual(['alice', 'carol', 'dave']);
      const last = await apply('users2.yml', text, { kind: 'delete', username: 'dave' });
      expect(last.endsWith('        passkey_only: true\n\n# end of file\n')).toBe(true);
    });

    it('sets a password: the hash is written and passkey_only dropped', async () => {
      const after = await apply('users.yml', text, { kind: 'set_password', username: 'carol', passwordHash: NEW_HASH });
      expect(changedLines(text, after)).toEqual({ removed: ['        passkey_only: true'], added: [`        password: "${NEW_HASH}"`] });
      expect(entry(after, 'users.yml', 'carol')).toEqual({ username: 'carol', hash: NEW_HASH });
      const replaced = await apply('users2.yml', text, { kind: 'set_password', username: 'alice', passwordHash: NEW_HASH });
      expect(changedLines(text, replaced)).toEqual({ removed: [`        password:   "${HASH}"`], added: [`        password:   "${NEW_HASH}"`] });
    });

    it('answers user_not_found for a person the file does not hold, and writes nothing', async () => {
      const { editor, read } = setUp('users.yml', text);
      for (const kind of ['update', 'disable', 'enable', 'delete'] as const) {
        expect(await editor.edit({ kind, username: 'zed' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
      }
      expect(read()).toBe(text);
    });
  });

  describe('CRLF line endings', () => {
    const text = fixture('commented.yaml.txt').replace(/\n/g, '\r\n');

    it.each<[string, AccountChange]>([
      ['create', { kind: 'create', username: 'erin', groups: ['staff'] }],
      ['update', { kind: 'update', username: 'alice', email: 'a@example.org', groups: ['staff'] }],
      ['disable', { kind: 'disable', username: 'alice' }],
      ['enable', { kind: 'enable', username: 'dave' }],
      ['delete', { kind: 'delete', username: 'bob' }],
      ['set_password', { kind: 'set_password', username: 'carol', passwordHash: NEW_HASH }],
    ])('%s keeps every line ending CRLF', async (_kind, change) => {
      const after = await apply('users.yml', text, change);
      expect(after).not.toBe(text);
      expect(after.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
      const plain = await apply('plain.yml', text.replace(/\r\n/g, '\n'), change);
      expect(after).toBe(plain.replace(/\n/g, '\r\n'));
    });
  });

  describe('flow entries, a dash on its own line, a comma-separated group string and a document marker', () => {
    const text = fixture('flow.yaml.txt');

    it('edits a flow entry inside its braces', async () => {
      const after = await apply('users.yml', text, { kind: 'disable', username: 'erin' });
      expect(changedLines(text, after).added).toEqual([`- {username: erin, password: "${HASH}", groups: "staff, ops", disabled: true}`]);
      const groups = await apply('users2.yml', text, { kind: 'update', username: 'erin', groups: ['ops'] });
      expect(changedLines(text, groups).added).toEqual([`- {username: erin, password: "${HASH}", groups: ops}`]);
      expect(entry(groups, 'users.yml', 'erin')?.groups).toEqual(['ops']);
    });

    it('deletes a flow entry and a dash-alone entry whole', async () => {
      const erin = await apply('users.yml', text, { kind: 'delete', username: 'erin' });
      expect(erin).toBe(text.replace(/^- \{username: erin.*\n/m, ''));
      const frank = await apply('users2.yml', text, { kind: 'delete', username: 'frank' });
      expect(frank).toBe(text.replace(/^-\n {2}username: frank\n.*\n.*\n/m, ''));
      expect(entries(frank, 'users.yml').map((e) => e.username)).toEqual(['erin', 'grace']);
    });

    it('fills an empty value, keeps the column of the list', async () => {
      const after = await apply('users.yml', text, { kind: 'update', username: 'grace', groups: ['a'] });
      expect(changedLines(text, after)).toEqual({ removed: ['  groups:'], added: ['  groups: [a]'] });
      const created = await apply('users2.yml', text, { kind: 'create', username: 'heidi' });
      expect(created).toBe(`${text}- username: heidi\n  passkey_only: true\n`);
      expect(entry(after, 'users.yml', 'frank')?.name).toBe('Frank "the tank" Zoë');
    });
  });

  describe('an empty list', () => {
    it('becomes a block list with the first person, its comment kept', async () => {
      const text = fixture('empty-list.yaml.txt');
      const after = await apply('users.yml', text, { kind: 'create', username: 'alice', email: 'alice@example.com' });
      expect(after).toBe('# Nobody yet.\nusers:   # the console adds people here\n  - username: alice\n    email: alice@example.com\n    passkey_only: true\n');
      const bare = await apply('bare.yml', '# none\nusers:\n', { kind: 'create', username: 'bob' });
      expect(bare).toBe('# none\nusers:\n  - username: bob\n    passkey_only: true\n');
    });
  });

  describe('the line form', () => {
    const text = fixture('lines.txt');

    it('creates a passkey-only line at the end', async () => {
      const after = await apply('users', text, { kind: 'create', username: 'erin' });
      expect(after).toBe(`${text}erin:passkey-only\n`);
      expect(entry(after, 'users', 'erin')).toEqual({ username: 'erin', hash: '', passkeyOnly: true });
      const noEol = await apply('users2', text.trimEnd(), { kind: 'create', username: 'erin' });
      expect(noEol).toBe(`${text}erin:passkey-only\n`);
    });

    it('refuses what the form cannot hold, naming the field', async () => {
      const { editor, read } = setUp('users', text);
      expect(await editor.edit({ kind: 'create', username: 'erin', name: 'Erin' })).toEqual({
        ok: false,
        error: { code: 'unsupported_format', field: 'name' },
      });
      expect(await editor.edit({ kind: 'update', username: 'alice', email: 'a@example.com' })).toEqual({
        ok: false,
        error: { code: 'unsupported_format', field: 'email' },
      });
      expect(await editor.edit({ kind: 'update', username: 'alice', groups: ['x'] })).toEqual({
        ok: false,
        error: { code: 'unsupported_format', field: 'groups' },
      });
      expect(await editor.edit({ kind: 'disable', username: 'alice' })).toEqual({ ok: false, error: { code: 'unsupported_format', field: 'disabled' } });
      expect(read()).toBe(text);
    });

    it('deletes a line, not the commented-out one of the same name', async () => {
      const after = await apply('users', text, { kind: 'delete', username: 'bob' });
      expect(after).toBe(text.replace(/^ {2}bob .*\n/m, ''));
      const dave = setUp('users2', text);
      expect(await dave.editor.edit({ kind: 'delete', username: 'dave' })).toEqual({ ok: false, error: { code: 'user_not_found' } });
    });

    it('sets a password in place, keeping spacing, the TOTP secret and the comment', async () => {
      const bob = await apply('users', text, { kind: 'set_password', username: 'BOB', passwordHash: NEW_HASH });
      expect(changedLines(text, bob).added).toEqual([`  bob : ${NEW_HASH} : JBSWY3DPEHPK3PXPJBSWY3DP   # bob's phone`]);
      expect(entry(bob, 'users', 'bob')).toEqual({ username: 'bob', hash: NEW_HASH, totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DP' });
      const carol = await apply('users2', text, { kind: 'set_password', username: 'carol', passwordHash: NEW_HASH });
      expect(changedLines(text, carol)).toEqual({ removed: ['carol:passkey-only'], added: [`carol:${NEW_HASH}`] });
    });

    it('keeps CRLF endings', async () => {
      const crlf = text.replace(/\n/g, '\r\n');
      const after = await apply('users', crlf, { kind: 'create', username: 'erin' });
      expect(after).toBe(`${crlf}erin:passkey-only\r\n`);
      const deleted = await apply('users2', crlf, { kind: 'delete', username: 'alice' });
      expect(deleted).toBe(crlf.replace(/^alice:.*\r\n/m, ''));
    });
  });

  describe('writing', () => {
    it('keeps the file mode, leaves no temporary file, and writes through a symlink', async () => {
      const real = join(dir, 'real.yml');
      writeFileSync(real, fixture('commented.yaml.txt'));
      chmodSync(real, 0o640);
      const link = join(dir, 'users.yml');
      symlinkSync(real, link);
      const editor = new UsersFileEditor(link, optionalModules.yaml);
      expect((await editor.edit({ kind: 'delete', username: 'bob' })).ok).toBe(true);
      expect(statSync(real).mode & 0o777).toBe(0o640);
      expect(readdirSync(dir).sort()).toEqual(['real.yml', 'users.yml']);
      expect(entries(readFileSync(link, 'utf8'), 'users.yml').map((e) => e.username)).toEqual(['alice', 'carol', 'dave']);
    });

    it('reports the new version, refuses a stale one and writes nothing', async () => {
      const { editor, path, read } = setUp('users.yml', fixture('commented.yaml.txt'));
      const v1 = await editor.version();
      const first = await editor.edit({ kind: 'disable', username: 'bob' }, v1);
      if (!first.ok) throw new Error('edit failed');
      expect(first.value.version).toBe(await editor.version());
      const after = read();
      expect(await editor.edit({ kind: 'disable', username: 'alice' }, v1)).toEqual({ ok: false, error: { code: 'users_file_changed' } });
      expect(read()).toBe(after);
      // A hand edit moves the version too.
      writeFileSync(path, `${after}# touched\n`);
      expect(await editor.edit({ kind: 'enable', username: 'bob' }, first.value.version)).toEqual({ ok: false, error: { code: 'users_file_changed' } });
    });

    it('loses no hand edit that lands between its read and its rename', async () => {
      const text = fixture('commented.yaml.txt');
      const path = join(dir, 'users.yml');
      writeFileSync(path, text);
      const hand = text.replace('# end of file', '  # hand edit\n# end of file');
      // The hook runs inside the write: an editor in the same directory saves while the console's edit is pending.
      const editor = new UsersFileEditor(path, optionalModules.yaml);
      const raced = editor as unknown as { replace: (target: string, before: Buffer, t: string) => Promise<unknown> };
      const original = raced.replace.bind(editor);
      raced.replace = async (target, before, t) => {
        writeFileSync(path, hand);
        return original(target, before, t);
      };
      expect(await editor.edit({ kind: 'delete', username: 'bob' })).toEqual({ ok: false, error: { code: 'users_file_changed' } });
      expect(readFileSync(path, 'utf8')).toBe(hand);
      expect(readdirSync(dir)).toEqual(['users.yml']);
    });

    it('runs edits one at a time, so concurrent ones all land', async () => {
      let reloads = 0;
      const { editor, read } = setUp('users.yml', fixture('commented.yaml.txt'), async () => {
        reloads += 1;
      });
      const results = await Promise.all(['p1', 'p2', 'p3', 'p4'].map((username) => editor.edit({ kind: 'create', username })));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(entries(read(), 'users.yml').map((e) => e.username)).toEqual(['alice', 'bob', 'carol', 'dave', 'p1', 'p2', 'p3', 'p4']);
      expect(reloads).toBe(4);
    });

    it('refuses an edit that would leave a file that does not load', async () => {
      const { editor, read } = setUp('users.yml', 'users:\n  - username: alice\n    password: "x"\n');
      const result = await editor.edit({ kind: 'update', username: 'alice', name: 'A' });
      expect(result).toEqual({ ok: false, error: { code: 'users_file_unwritable', reason: expect.stringMatching(/would not load/) } });
      expect(read()).toBe('users:\n  - username: alice\n    password: "x"\n');
    });

    it('answers users_file_unwritable when the file is gone', async () => {
      const editor = new UsersFileEditor(join(dir, 'missing.yml'), optionalModules.yaml);
      expect(await editor.edit({ kind: 'create', username: 'a' })).toEqual({
        ok: false,
        error: { code: 'users_file_unwritable', reason: 'cannot read the users file (ENOENT)' },
      });
    });
  });
});
