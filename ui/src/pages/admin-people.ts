import { call, UnreachableError, type Answer } from '../api';
import { busy, clearAlert, field, h, showAlert } from '../dom';
import { t } from '../i18n';
import { unreachable } from '../messages';
import { leftFor } from './admin-common';

// The People section's changes (issue 36): add a person, edit name, e-mail and groups, disable,
// enable and delete. Only people of the users file can be changed; the server decides every request.

/** A person as `GET /api/admin/users` lists them (the fields this module uses). */
export interface EditablePerson {
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly groups: readonly string[];
  readonly disabled: boolean;
  readonly source: string;
}

export interface PeopleContext {
  readonly alert: HTMLElement;
  readonly status: HTMLElement;
  /** Loads the lists again (and with them the users file's version). */
  readonly refresh: () => Promise<boolean>;
  /** The users file's version the list was read at, sent with each change; null without a users file. */
  readonly version: () => string | null;
}

type Kind = 'create' | 'update' | 'disable' | 'enable' | 'delete';

const PATHS: Readonly<Record<Kind, string>> = {
  create: '/api/admin/users',
  update: '/api/admin/users/update',
  disable: '/api/admin/users/disable',
  enable: '/api/admin/users/enable',
  delete: '/api/admin/users/delete',
};

function doneText(code: string, username: string): string | null {
  switch (code) {
    case 'user_created':
      return t('admin.created', { username });
    case 'user_updated':
      return t('admin.updated', { username });
    case 'user_disabled':
      return t('admin.disabledDone', { username });
    case 'user_enabled':
      return t('admin.enabledDone', { username });
    case 'user_deleted':
      return t('admin.deleted', { username });
    default:
      return null;
  }
}

/** What to say for a refused change; null when the common admin handling applies. */
function refusalText(answer: Answer<string>): string | null {
  switch (answer.code) {
    case 'user_exists':
      return t('admin.userExists');
    case 'user_not_found':
      return t('admin.userNotFound');
    case 'read_only_source':
      return t('admin.readOnly');
    case 'last_admin':
      return t('admin.lastAdmin');
    case 'invalid_fields':
      return t('admin.invalidFields', { fields: Array.isArray(answer.body.fields) ? answer.body.fields.join(', ') : '' });
    case 'unsupported_format':
      return t('admin.unsupportedFormat', { field: String(answer.body.field ?? '') });
    case 'users_file_unwritable':
      return t('admin.unwritable');
    default:
      return null;
  }
}

/** Sends one change; true when it was made (the lists are then loaded again). */
async function change(c: PeopleContext, kind: Kind, body: Record<string, unknown>, button: HTMLButtonElement, label: string): Promise<boolean> {
  busy(button, true, t('admin.saving'));
  clearAlert(c.alert);
  try {
    const version = c.version();
    const answer = await call<string>('POST', PATHS[kind], version === null ? body : { ...body, version });
    const done = doneText(answer.code, String(body.username));
    if (done !== null) {
      c.status.textContent = done;
      await c.refresh();
      return true;
    }
    if (answer.code === 'users_file_changed') {
      // Someone else (a hand edit, another administrator) changed the file: show what it holds now.
      await c.refresh();
      showAlert(c.alert, t('admin.fileChanged'));
    } else {
      const text = refusalText(answer);
      if (text !== null) showAlert(c.alert, text);
      else if (leftFor(answer, c.alert)) return false;
    }
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    showAlert(c.alert, unreachable());
  }
  busy(button, false, label);
  return false;
}

function groupsOf(text: string): string[] {
  return text
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
}

/** Name, e-mail and groups fields (ids made unique with `prefix`), filled from `person` when given. */
function detailFields(prefix: string, person?: EditablePerson) {
  const name = field(`${prefix}-name`, t('admin.name'), { type: 'text', autocomplete: 'off', value: person?.name ?? '' });
  const email = field(`${prefix}-email`, t('admin.email'), { type: 'email', autocomplete: 'off', dir: 'ltr', value: person?.email ?? '' });
  const groups = field(`${prefix}-groups`, t('admin.groups'), { type: 'text', autocomplete: 'off', value: person?.groups.join(', ') ?? '' });
  return { name, email, groups };
}

/** The "add a person" form: a passkey-only entry in the users file until an invitation sets a password. */
export function addPersonForm(c: PeopleContext): HTMLElement {
  const username = field('person-new-username', t('admin.username'), { type: 'text', autocomplete: 'off', required: true, dir: 'ltr' });
  const { name, email, groups } = detailFields('person-new');
  const add = h('button', { type: 'submit', class: 'primary' }, t('admin.add'));
  const form = h('form', { id: 'person-add-form', novalidate: true }, username.wrapper, name.wrapper, email.wrapper, groups.wrapper, add);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body: Record<string, unknown> = { username: username.input.value.trim() };
    if (name.input.value.trim() !== '') body.name = name.input.value.trim();
    if (email.input.value.trim() !== '') body.email = email.input.value.trim();
    if (groupsOf(groups.input.value).length > 0) body.groups = groupsOf(groups.input.value);
    void change(c, 'create', body, add, t('admin.add')).then((made) => {
      if (made) form.reset();
      busy(add, false, t('admin.add'));
    });
  });
  return h('details', { class: 'person-add' }, h('summary', {}, t('admin.addPerson')), form);
}

/** A person's buttons: edit, disable or enable, delete; for USERS and LDAP people, a read-only note. */
export function personControls(person: EditablePerson, c: PeopleContext, nameId: string): HTMLElement {
  if (person.source !== 'file') return h('p', { class: 'hint', 'data-read-only': person.username }, t('admin.readOnly'));
  const prefix = `person-${person.username.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const button = (data: string, label: string, extra: Record<string, string> = {}) =>
    h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId, [data]: person.username, ...extra }, label);
  const editButton = button('data-edit', t('admin.edit'), { 'aria-expanded': 'false' });
  const toggle = button('data-toggle', person.disabled ? t('admin.enable') : t('admin.disable'));
  const remove = button('data-delete', t('admin.delete'));
  const { name, email, groups } = detailFields(prefix, person);
  const save = h('button', { type: 'submit', class: 'primary small' }, t('admin.save'));
  const cancel = h('button', { type: 'button', class: 'secondary small' }, t('admin.cancel'));
  const form = h('form', { class: 'person-edit', novalidate: true, hidden: true }, name.wrapper, email.wrapper, groups.wrapper, save, cancel);

  editButton.addEventListener('click', () => {
    form.hidden = !form.hidden;
    editButton.setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) name.input.focus();
  });
  cancel.addEventListener('click', () => {
    form.hidden = true;
    editButton.setAttribute('aria-expanded', 'false');
    editButton.focus();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // Only what was changed is sent (an emptied field is cleared in the file): a derived e-mail or name stays derived.
    const body: Record<string, unknown> = { username: person.username };
    if (name.input.value.trim() !== person.name) body.name = name.input.value.trim();
    if (email.input.value.trim() !== person.email) body.email = email.input.value.trim();
    const newGroups = groupsOf(groups.input.value);
    if (newGroups.join(',') !== person.groups.join(',')) body.groups = newGroups;
    void change(c, 'update', body, save, t('admin.save'));
  });
  toggle.addEventListener('click', () => {
    const kind = person.disabled ? 'enable' : 'disable';
    void change(c, kind, { username: person.username }, toggle, toggle.textContent ?? '');
  });
  remove.addEventListener('click', () => {
    if (!window.confirm(t('admin.confirmDelete', { username: person.username }))) return;
    void change(c, 'delete', { username: person.username }, remove, t('admin.delete'));
  });
  return h('div', { class: 'person-controls' }, h('p', { class: 'actions' }, editButton, toggle, remove), form);
}

/** The mark beside a disabled person's name. */
export function disabledMark(person: EditablePerson): HTMLElement | false {
  return person.disabled && h('span', { class: 'badge', 'data-disabled': person.username }, t('admin.disabledMark'));
}
