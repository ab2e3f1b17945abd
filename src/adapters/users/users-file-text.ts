import type { Node as YamlNode, Pair, YAMLMap, YAMLSeq } from 'yaml';
import type { AccountChange, AccountEditError } from '../../application/ports/account-editor';
import { err, ok, type Result } from '../../domain/result';
import { PASSKEY_ONLY_MARK } from '../../domain/users-list';
import { detectUsersFileFormat, type YamlLoader } from '../../config/users-file';

/**
 * Text edits of a users file (issue 36): each change touches only the text of the entry it names,
 * so comments, order, spacing, quoting and line endings elsewhere stay byte for byte as written.
 * The YAML form is edited through the node ranges the `yaml` library reports (never by printing
 * the document again); the line form line by line.
 */
export function editUsersFileText(text: string, fileName: string, change: AccountChange, yaml: YamlLoader): Result<string, AccountEditError> {
  return detectUsersFileFormat(text, fileName) === 'yaml' ? editYaml(text, change, yaml()) : editLines(text, change);
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

function splice(text: string, from: number, to: number, insert: string): string {
  return text.slice(0, from) + insert + text.slice(to);
}

// ---------------------------------------------------------------------------------------------
// The line form: `username:hash[:totp-secret]` or `username:passkey-only`, one a line.

/** The line form has no room for a name, an e-mail, groups or a disabled mark. */
function lineFormField(change: AccountChange): string | null {
  if (change.kind === 'disable' || change.kind === 'enable') return 'disabled';
  if (change.kind !== 'create' && change.kind !== 'update') return null;
  if (change.name !== undefined && change.name !== '') return 'name';
  if (change.email !== undefined && change.email !== '') return 'email';
  if (change.groups !== undefined && change.groups.length > 0) return 'groups';
  return null;
}

/** Where the account part of a line ends: before a comment (`#` at the start or after a space). */
function contentEnd(line: string): number {
  const match = /(^|\s)#/.exec(line);
  return match === null ? line.length : match.index;
}

function editLines(text: string, change: AccountChange): Result<string, AccountEditError> {
  const field = lineFormField(change);
  if (field !== null) return err({ code: 'unsupported_format', field });
  const eol = eolOf(text);
  // Each line keeps its own ending, so a file with mixed endings stays as it was.
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const wanted = change.username.toLowerCase();
  const index = lines.findIndex((line) => {
    const content = line.slice(0, contentEnd(line.replace(/\r?\n$/, ''))).trim();
    return content !== '' && content.split(':')[0].trim().toLowerCase() === wanted;
  });
  if (change.kind === 'create') {
    if (index >= 0) return err({ code: 'user_exists' });
    const joint = text === '' || text.endsWith('\n') ? '' : eol;
    return ok(`${text}${joint}${change.username}:${PASSKEY_ONLY_MARK}${eol}`);
  }
  if (index < 0) return err({ code: 'user_not_found' });
  if (change.kind === 'update') return ok(text);
  if (change.kind === 'delete') return ok(lines.filter((_, i) => i !== index).join(''));
  if (change.kind !== 'set_password') return ok(text);
  const line = lines[index];
  const body = line.replace(/\r?\n$/, '');
  const end = contentEnd(body);
  const parts = body.slice(0, end).split(':');
  // The hash keeps the spacing around it; a TOTP secret after it stays.
  parts[1] = parts[1].replace(/^(\s*)\S*(\s*)$/, (_m, before: string, after: string) => `${before}${change.passwordHash}${after}`);
  lines[index] = parts.join(':') + line.slice(end);
  return ok(lines.join(''));
}

// ---------------------------------------------------------------------------------------------
// The YAML form.

type Yaml = typeof import('yaml');

interface YamlContext {
  readonly text: string;
  readonly eol: string;
  readonly yaml: Yaml;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Just past the end of the line holding `pos` (its line ending included). */
function lineEnd(text: string, pos: number): number {
  const next = text.indexOf('\n', pos);
  return next < 0 ? text.length : next + 1;
}

function column(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9_.@+-]*( [A-Za-z0-9_.@+-]+)*$/;

/** A scalar as YAML text: plain when nothing in it means something to YAML, double-quoted otherwise. */
export function yamlScalar(value: string): string {
  return PLAIN.test(value) ? value : JSON.stringify(value);
}

function flowList(values: readonly string[]): string {
  return `[${values.map(yamlScalar).join(', ')}]`;
}

function rangeOf(node: YamlNode | null | undefined): [number, number, number] {
  const range = node?.range;
  if (range === undefined || range === null) throw new Error('users file node without a source range');
  return [range[0], range[1], range[2]];
}

function keyName(pair: Pair): string {
  const key = pair.key as { value?: unknown } | null;
  return String(key?.value ?? '');
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => keyName(pair) === key);
}

/** Where a pair's value ends in the text, for block values just past their last line. */
function valueEnd(ctx: YamlContext, pair: Pair): number {
  const value = pair.value as YamlNode | null;
  if (value === null || value.range === undefined || value.range === null) return rangeOf(pair.key as YamlNode)[1];
  return rangeOf(value)[1];
}

function isBlock(ctx: YamlContext, node: unknown): boolean {
  return (ctx.yaml.isSeq(node) || ctx.yaml.isMap(node)) && (node as YAMLSeq).flow !== true;
}

/** Sets `key` of an entry to `valueText` (YAML text), adding the pair after the entry's last one when missing. */
function setPair(ctx: YamlContext, map: YAMLMap, key: string, valueText: string): string {
  const { text, eol } = ctx;
  const pair = findPair(map, key);
  if (pair !== undefined) {
    const value = pair.value as YamlNode | null;
    const [from, to] = rangeOf(value);
    if (isBlock(ctx, value)) {
      // A block list under the key becomes the new value on the key's line.
      const keyEnd = rangeOf(pair.key as YamlNode)[1];
      const colon = text.indexOf(':', keyEnd);
      return splice(text, colon + 1, lineEnd(text, to - 1), ` ${valueText}${eol}`);
    }
    return from === to ? splice(text, from, to, ` ${valueText}`) : splice(text, from, to, valueText);
  }
  const last = map.items[map.items.length - 1];
  if (map.flow === true) {
    return splice(text, valueEnd(ctx, last), valueEnd(ctx, last), `, ${key}: ${valueText}`);
  }
  const indent = ' '.repeat(column(text, rangeOf(map.items[0].key as YamlNode)[0]));
  const end = valueEnd(ctx, last);
  const at = isBlock(ctx, last.value) ? lineEnd(text, end - 1) : lineEnd(text, end);
  const joint = at > 0 && text[at - 1] !== '\n' ? eol : '';
  return splice(text, at, at, `${joint}${indent}${key}: ${valueText}${eol}`);
}

/** Removes `key` from an entry; a pair sharing the entry's first line (or a flow entry's) is set to `emptyText` instead. */
function removePair(ctx: YamlContext, map: YAMLMap, key: string, emptyText: string): string {
  const { text } = ctx;
  const pair = findPair(map, key);
  if (pair === undefined) return text;
  const keyStart = rangeOf(pair.key as YamlNode)[0];
  const before = text.slice(lineStart(text, keyStart), keyStart);
  if (map.flow === true || before.trim() !== '') return setPair(ctx, map, key, emptyText);
  const end = valueEnd(ctx, pair);
  const to = isBlock(ctx, pair.value) ? lineEnd(text, end - 1) : lineEnd(text, end);
  return splice(text, lineStart(text, keyStart), to, '');
}

function groupsText(ctx: YamlContext, map: YAMLMap, groups: readonly string[]): string {
  const current = findPair(map, 'groups')?.value;
  // A comma-separated string stays one; lists are written as flow lists.
  if (ctx.yaml.isScalar(current) && typeof current.value === 'string' && current.value !== '' && groups.length > 0) return yamlScalar(groups.join(', '));
  return flowList(groups);
}

interface Located {
  readonly list: YAMLSeq | null;
  readonly entry: YAMLMap | null;
}

function locate(ctx: YamlContext, username: string): Result<Located, AccountEditError> {
  const { yaml, text } = ctx;
  const doc = yaml.parseDocument(text, { schema: 'failsafe', uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) return err({ code: 'users_file_unwritable', reason: 'the users file is not valid YAML' });
  const root = doc.contents;
  if (root === null || (yaml.isScalar(root) && (root.value === null || root.value === ''))) return ok({ list: null, entry: null });
  if (!yaml.isMap(root)) return err({ code: 'users_file_unwritable', reason: 'the users file is not a mapping with a "users:" list' });
  const list = root.get('users', true) as unknown;
  if (list === undefined || (yaml.isScalar(list) && (list.value === null || list.value === ''))) return ok({ list: null, entry: null });
  if (!yaml.isSeq(list)) return err({ code: 'users_file_unwritable', reason: '"users" is not a list' });
  const wanted = username.toLowerCase();
  const entry = list.items.find(
    (item): item is YAMLMap =>
      yaml.isMap(item) &&
      String(item.get('username') ?? '')
        .trim()
        .toLowerCase() === wanted,
  );
  return ok({ list, entry: entry ?? null });
}

function editYaml(text: string, change: AccountChange, yaml: Yaml): Result<string, AccountEditError> {
  const ctx: YamlContext = { text, eol: eolOf(text), yaml };
  const located = locate(ctx, change.username);
  if (!located.ok) return located;
  const { list, entry } = located.value;
  if (change.kind === 'create') return entry === null ? createEntry(ctx, list, change) : err({ code: 'user_exists' });
  if (entry === null) return err({ code: 'user_not_found' });
  switch (change.kind) {
    case 'delete':
      return ok(deleteEntry(ctx, entry));
    case 'disable':
      return ok(setPair(ctx, entry, 'disabled', 'true'));
    case 'enable':
      return ok(enableEntry(ctx, entry));
    case 'set_password':
      return ok(setPasswordOf(ctx, entry, change.passwordHash));
    case 'update':
      return ok(updateEntry(ctx, change, entry));
  }
}

/** Applies the fields one at a time, reading the entry again after each splice (ranges move). */
function updateEntry(ctx: YamlContext, change: Extract<AccountChange, { kind: 'update' }>, entry: YAMLMap): string {
  let text = ctx.text;
  const steps: Array<[string, string | readonly string[] | undefined]> = [
    ['name', change.name],
    ['email', change.email],
    ['groups', change.groups],
  ];
  for (const [key, value] of steps) {
    if (value === undefined) continue;
    const next: YamlContext = { ...ctx, text };
    const current = text === ctx.text ? entry : reread(next, change.username);
    if (typeof value === 'string') text = value === '' ? removePair(next, current, key, '""') : setPair(next, current, key, yamlScalar(value));
    else text = value.length === 0 ? removePair(next, current, key, '[]') : setPair(next, current, key, groupsText(next, current, value));
  }
  return text;
}

function reread(ctx: YamlContext, username: string): YAMLMap {
  const located = locate(ctx, username);
  if (!located.ok || located.value.entry === null) throw new Error('users file entry lost while editing it');
  return located.value.entry;
}

/** Enabling takes the mark off; an entry with no password is made passkey-only, so it loads (and an invitation sets one). */
function enableEntry(ctx: YamlContext, entry: YAMLMap): string {
  let text = removePair(ctx, entry, 'disabled', 'false');
  const password = entry.get('password');
  const hasPassword = typeof password === 'string' && password.trim() !== '';
  const passkeyOnly = String(entry.get('passkey_only') ?? '')
    .trim()
    .toLowerCase();
  const service = String(entry.get('service') ?? '')
    .trim()
    .toLowerCase();
  const marked = (v: string): boolean => ['true', 'yes', 'on'].includes(v);
  if (!hasPassword && !marked(passkeyOnly) && !marked(service)) {
    const username = String(entry.get('username'));
    const next: YamlContext = { ...ctx, text };
    text = setPair(next, reread(next, username), 'passkey_only', 'true');
  }
  return text;
}

function setPasswordOf(ctx: YamlContext, entry: YAMLMap, hash: string): string {
  const username = String(entry.get('username'));
  let text = setPair(ctx, entry, 'password', yamlScalar(hash));
  const next: YamlContext = { ...ctx, text };
  text = removePair(next, reread(next, username), 'passkey_only', 'false');
  return text;
}

/** The entry's lines go, from its dash to its last value; comments around it stay. */
function deleteEntry(ctx: YamlContext, entry: YAMLMap): string {
  const { text } = ctx;
  const [start, , end] = rangeOf(entry);
  let dash = start - 1;
  while (dash > 0 && /\s/.test(text[dash])) dash -= 1;
  const from = lineStart(text, dash);
  const to = entry.flow === true ? lineEnd(text, rangeOf(entry)[1]) : lineEnd(text, Math.max(start, end - 1));
  return splice(text, from, to, '');
}

function createEntry(ctx: YamlContext, list: YAMLSeq | null, change: Extract<AccountChange, { kind: 'create' }>): Result<string, AccountEditError> {
  const { text, eol, yaml } = ctx;
  const fields: string[] = [`username: ${yamlScalar(change.username)}`];
  if (change.name !== undefined && change.name !== '') fields.push(`name: ${yamlScalar(change.name)}`);
  if (change.email !== undefined && change.email !== '') fields.push(`email: ${yamlScalar(change.email)}`);
  if (change.groups !== undefined && change.groups.length > 0) fields.push(`groups: ${flowList(change.groups)}`);
  fields.push('passkey_only: true');
  if (list !== null && list.flow === true && list.items.length > 0) return err({ code: 'unsupported_format', field: 'users' });
  if (list === null || list.items.length === 0) {
    const block = fields.map((f, i) => `${i === 0 ? '  - ' : '    '}${f}`).join(eol);
    return ok(startList(ctx, list, block));
  }
  const first = list.items[0] as YamlNode;
  const firstStart = rangeOf(first)[0];
  let dash = firstStart - 1;
  while (dash > 0 && /\s/.test(text[dash])) dash -= 1;
  const dashColumn = column(text, dash);
  const keyColumn =
    yaml.isMap(first) && first.flow !== true && lineStart(text, firstStart) === lineStart(text, dash) ? column(text, firstStart) : dashColumn + 2;
  const block = fields
    .map((f, i) => (i === 0 ? `${' '.repeat(dashColumn)}-${' '.repeat(keyColumn - dashColumn - 1)}${f}` : `${' '.repeat(keyColumn)}${f}`))
    .join(eol);
  const last = list.items[list.items.length - 1] as YamlNode;
  const lastEnd = rangeOf(last)[1];
  const at = yaml.isMap(last) && last.flow !== true ? lineEnd(text, Math.max(rangeOf(last)[0], rangeOf(last)[2] - 1)) : lineEnd(text, lastEnd);
  const joint = at > 0 && text[at - 1] !== '\n' ? eol : '';
  return ok(splice(text, at, at, `${joint}${block}${eol}`));
}

/** The first entry of a file whose list is empty (`users:`, `users: []`) or missing. */
function startList(ctx: YamlContext, list: YAMLSeq | null, block: string): string {
  const { text, eol } = ctx;
  const key = /^users[ \t]*:/m.exec(text);
  if (key === null) {
    const joint = text === '' || text.endsWith('\n') ? '' : eol;
    return `${text}${joint}users:${eol}${block}${eol}`;
  }
  const colon = key.index + key[0].length;
  const to = list === null ? colon : rangeOf(list)[1];
  const rest = text.slice(to);
  // Whatever followed the empty list on its line (a comment) stays on the first line.
  const restOfLine = rest.slice(0, rest.search(/\r?\n|$/));
  return splice(text, colon, to + restOfLine.length, `${restOfLine.trimEnd() === '' ? '' : restOfLine}${eol}${block}`);
}
