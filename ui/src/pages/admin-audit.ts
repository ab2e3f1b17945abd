import { call, UnreachableError } from '../api';
import { busy, field, h, showAlert } from '../dom';
import { t } from '../i18n';
import { unreachable } from '../messages';
import { leftFor, when } from './admin-common';

interface AuditEventView {
  readonly id: string;
  readonly time: string;
  readonly event: string;
  readonly username: string | null;
  readonly login: string | null;
  readonly admin: string | null;
  readonly ip: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The console's audit trail section (issue 36): filters (person, event, since), the events newest
 * first, "More" with the cursor the server hands out, and a link that downloads the same filters
 * as JSON lines. `load()` shows the first page; the server decides every request.
 */
export function auditSection(alert: HTMLElement): { readonly section: HTMLElement; load(): Promise<void> } {
  const person = field('audit-username', t('admin.auditPerson'), { type: 'text', autocomplete: 'off' });
  const event = field('audit-event', t('admin.auditEvent'), { type: 'text', autocomplete: 'off', dir: 'ltr', spellcheck: 'false' });
  const since = field('audit-since', t('admin.auditSince'), { type: 'datetime-local' });
  const show = h('button', { type: 'submit', class: 'primary' }, t('admin.auditShow'));
  const exportLink = h('a', { id: 'audit-export', href: '/api/admin/audit/export', download: '' }, t('admin.auditExport'));
  const form = h('form', { id: 'audit-form', novalidate: true, role: 'search' }, person.wrapper, event.wrapper, since.wrapper, show);
  const list = h('ul', { class: 'sessions', id: 'audit-events', 'aria-labelledby': 'audit-heading' });
  const status = h('p', { id: 'audit-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const more = h('button', { type: 'button', class: 'secondary', id: 'audit-more', hidden: true }, t('admin.auditMore'));
  let next: string | null = null;

  /** The filters as a query string (no leading `?`); a `since` the browser cannot read is left out. */
  const filters = (): URLSearchParams => {
    const q = new URLSearchParams();
    if (person.input.value.trim() !== '') q.set('username', person.input.value.trim());
    if (event.input.value.trim() !== '') q.set('event', event.input.value.trim());
    const from = since.input.value === '' ? NaN : new Date(since.input.value).getTime();
    if (!Number.isNaN(from)) q.set('since', new Date(from).toISOString());
    return q;
  };

  const itemOf = (e: AuditEventView): HTMLLIElement => {
    const who = e.username ?? e.login ?? '';
    const nameId = `audit-${e.id}-name`;
    return h(
      'li',
      { class: 'session', 'data-audit-event': e.event, 'data-audit-id': e.id },
      h('h3', { id: nameId }, h('bdi', { dir: 'ltr' }, e.event), who !== '' && ' · ', who !== '' && h('bdi', {}, who)),
      h(
        'dl',
        { class: 'session-facts' },
        h('dt', {}, t('admin.auditTime')),
        h('dd', {}, h('time', { datetime: e.time }, when(e.time))),
        e.login !== null && e.username === null && h('dt', {}, t('admin.auditTyped')),
        e.login !== null && e.username === null && h('dd', {}, h('bdi', {}, e.login)),
        e.admin !== null && h('dt', {}, t('admin.auditBy')),
        e.admin !== null && h('dd', {}, h('bdi', {}, e.admin)),
        e.ip !== null && h('dt', {}, t('account.address')),
        e.ip !== null && h('dd', {}, h('bdi', { dir: 'ltr' }, e.ip)),
      ),
      h('details', {}, h('summary', { 'aria-describedby': nameId }, t('admin.auditDetails')), h('pre', { dir: 'ltr' }, JSON.stringify(e.data, null, 2))),
    );
  };

  /** Asks for a page: the first of the filters (`after` null), or the one after the cursor. */
  const fetchPage = async (after: string | null): Promise<void> => {
    const q = filters();
    exportLink.setAttribute('href', `/api/admin/audit/export${q.toString() !== '' ? `?${q.toString()}` : ''}`);
    if (after !== null) q.set('cursor', after);
    const answer = await call<string>('GET', `/api/admin/audit${q.toString() !== '' ? `?${q.toString()}` : ''}`);
    if (answer.code !== 'audit') {
      if (answer.code === 'invalid_fields') status.textContent = t('admin.auditInvalid');
      else leftFor(answer, alert);
      return;
    }
    const events = answer.body.events as readonly AuditEventView[];
    if (after === null) list.replaceChildren(...events.map(itemOf));
    else list.append(...events.map(itemOf));
    next = typeof answer.body.next === 'string' ? answer.body.next : null;
    more.hidden = next === null;
    status.textContent = list.children.length === 0 ? t('admin.auditEmpty') : '';
  };

  const guarded = async (button: HTMLButtonElement, label: string, after: string | null): Promise<void> => {
    busy(button, true, t('admin.auditLoading'));
    try {
      await fetchPage(after);
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, label);
  };

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void guarded(show, t('admin.auditShow'), null);
  });
  more.addEventListener('click', () => void guarded(more, t('admin.auditMore'), next));

  const section = h(
    'section',
    { class: 'account-section', 'aria-labelledby': 'audit-heading', id: 'audit' },
    h('h2', { id: 'audit-heading' }, t('admin.auditHeading')),
    form,
    list,
    status,
    more,
    h('p', { class: 'actions' }, exportLink),
  );
  return { section, load: () => fetchPage(null) };
}
