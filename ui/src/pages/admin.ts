import { call, UnreachableError } from '../api';
import { alertArea, busy, field, h, showAlert } from '../dom';
import { t } from '../i18n';
import { unreachable } from '../messages';
import { render, replaceWith, type PageContext } from '../page';
import { sessionFacts } from '../session-facts';
import { adminAppsSections } from './admin-apps';
import { auditSection } from './admin-audit';
import { leftFor } from './admin-common';
import { invitationActions } from './admin-invite';
import { adminTokenList } from './admin-tokens';
import { addPersonForm, disabledMark, personControls, type EditablePerson, type PeopleContext } from './admin-people';

interface PersonView extends EditablePerson {
  readonly totp: boolean;
  readonly passkeys: number;
}

interface AdminSessionView {
  readonly id: string;
  readonly username: string;
  readonly method: string;
  readonly browser: string;
  readonly address: string;
  readonly startedAt: string;
  readonly lastSeenAt: string;
}

/**
 * `/admin` (issue 36): the people of the configured stores, everyone's sessions with "end session"
 * and "end all of a person", and the explain form. The server decides every request (ADMIN_GROUPS
 * and a fresh second factor); the page only shows what it answers.
 */
export async function adminPage(ctx: PageContext): Promise<void> {
  if (!ctx.user.isLoggedIn) return replaceWith('/login');
  const alert = alertArea('admin-alert');
  const status = h('p', { id: 'admin-status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const people = h('ul', { class: 'sessions', id: 'admin-people', 'aria-labelledby': 'people-heading' });
  const sessions = h('ul', { class: 'sessions', id: 'admin-sessions', 'aria-labelledby': 'admin-sessions-heading' });
  const result = h('p', { id: 'explain-result', role: 'status', 'aria-live': 'polite' });
  let version: string | null = null;
  const peopleContext: PeopleContext = { alert, status, refresh: () => refresh(), version: () => version };
  const truncated = h('p', { id: 'admin-people-truncated', hidden: true }, t('admin.ldapTruncated'));
  const applications = adminAppsSections(alert);

  const revoke = async (button: HTMLButtonElement, label: string, target: { id: string } | { username: string }): Promise<void> => {
    busy(button, true, t('admin.ending'));
    try {
      const answer = await call<string>('POST', '/api/admin/sessions/revoke', target);
      if (answer.code === 'sessions_revoked') {
        status.textContent = t('admin.ended', { count: typeof answer.body.revoked === 'number' ? answer.body.revoked : 0 });
        await refresh();
        return;
      }
      if (leftFor(answer, alert)) return;
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(button, false, label);
  };

  const tokens = adminTokenList(alert, status, () => refresh());

  const fillPeople = (list: readonly PersonView[]): void => {
    people.replaceChildren(
      ...list.map((p) => {
        const nameId = `person-${p.username}-name`;
        const endAll = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId, 'data-end-all': p.username }, t('admin.endAll'));
        endAll.addEventListener('click', () => void revoke(endAll, t('admin.endAll'), { username: p.username }));
        return h(
          'li',
          { class: 'session', 'data-person': p.username, 'data-search': [p.username, p.name, p.email, ...p.groups].join('\n').toLowerCase() },
          h('h3', { id: nameId }, h('bdi', {}, p.name !== '' && p.name !== p.username ? `${p.name} (${p.username})` : p.username), ' ', disabledMark(p)),
          h(
            'dl',
            { class: 'session-facts' },
            p.email !== '' && h('dt', {}, t('account.email')),
            p.email !== '' && h('dd', {}, h('bdi', { dir: 'ltr' }, p.email)),
            h('dt', {}, t('account.groups')),
            h('dd', {}, p.groups.join(', ')),
            p.source === 'ldap' && h('dt', {}, t('admin.source')),
            p.source === 'ldap' && h('dd', {}, t('admin.ldapReadOnly')),
            h('dt', {}, t('admin.secondFactor')),
            h(
              'dd',
              {},
              [p.totp ? t('admin.totp') : '', p.passkeys > 0 ? t('admin.passkeys', { count: p.passkeys }) : ''].filter((x) => x !== '').join(', ') ||
                t('admin.none'),
            ),
          ),
          endAll,
          invitationActions(p, alert, refresh),
          personControls(p, peopleContext, nameId),
        );
      }),
    );
  };

  const fillSessions = (list: readonly AdminSessionView[]): void => {
    sessions.replaceChildren(
      ...list.map((s) => {
        const nameId = `admin-session-${s.id}-name`;
        const end = h('button', { type: 'button', class: 'secondary small', 'aria-describedby': nameId, 'data-end-session': s.id }, t('admin.endSession'));
        end.addEventListener('click', () => void revoke(end, t('admin.endSession'), { id: s.id }));
        return h(
          'li',
          { class: 'session', 'data-session': s.id, 'data-username': s.username },
          h('h3', { id: nameId }, h('bdi', {}, s.username), ' · ', s.browser !== '' ? s.browser : t('account.unknownBrowser')),
          sessionFacts(s.method, s),
          end,
        );
      }),
    );
  };

  /** Loads both lists; false when the page had to go elsewhere or cannot show them. */
  const refresh = async (): Promise<boolean> => {
    const [u, s] = [await call<string>('GET', '/api/admin/users'), await call<string>('GET', '/api/admin/sessions')];
    if (u.code !== 'users') return !leftFor(u, alert) && false;
    if (s.code !== 'sessions') return !leftFor(s, alert) && false;
    version = typeof u.body.version === 'string' ? u.body.version : null;
    fillPeople(u.body.users as readonly PersonView[]);
    applySearch();
    truncated.hidden = !(Array.isArray(u.body.truncated) && u.body.truncated.includes('ldap'));
    fillSessions(s.body.sessions as readonly AdminSessionView[]);
    tokens.fill((s.body.tokens ?? []) as Parameters<typeof tokens.fill>[0]);
    return true;
  };

  const url = field('explain-url', t('admin.explainUrl'), { type: 'url', required: true, dir: 'ltr' });
  const who = field('explain-username', t('admin.explainUser'), { type: 'text', autocomplete: 'off' });
  const groups = field('explain-groups', t('admin.explainGroups'), { type: 'text', autocomplete: 'off' });
  const address = field('explain-address', t('admin.explainAddress'), { type: 'text', autocomplete: 'off', dir: 'ltr' });
  const ask = h('button', { type: 'submit', class: 'primary' }, t('admin.explain'));
  const form = h('form', { id: 'explain-form', novalidate: true }, url.wrapper, who.wrapper, groups.wrapper, address.wrapper, ask, result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    busy(ask, true, t('admin.explaining'));
    try {
      const body = {
        url: url.input.value.trim(),
        ...(who.input.value.trim() !== '' ? { username: who.input.value.trim() } : {}),
        groups: groups.input.value
          .split(',')
          .map((g) => g.trim())
          .filter((g) => g !== ''),
        ...(address.input.value.trim() !== '' ? { address: address.input.value.trim() } : {}),
      };
      const answer = await call<string>('POST', '/api/admin/explain', body);
      if (answer.code === 'decision') result.textContent = t('admin.decision', { decision: String(answer.body.decision), reason: String(answer.body.reason) });
      else if (answer.code === 'invalid_url' || answer.code === 'invalid_fields') result.textContent = t('admin.invalidUrl');
      else if (leftFor(answer, alert)) return;
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      showAlert(alert, unreachable());
    }
    busy(ask, false, t('admin.explain'));
  });

  const audit = auditSection(alert);
  // Finds people in the list as it stands (LDAP's are bounded); `GET /api/admin/users?q=` does the same for API clients.
  const search = field('people-search', t('admin.searchPeople'), { type: 'search', autocomplete: 'off' });
  const noMatch = h('p', { id: 'people-no-match', role: 'status', hidden: true }, t('admin.noMatch'));
  const applySearch = (): void => {
    const wanted = search.input.value.trim().toLowerCase();
    let shown = 0;
    for (const item of people.querySelectorAll<HTMLElement>('li[data-person]')) {
      item.hidden = wanted !== '' && !(item.dataset.search ?? '').includes(wanted);
      if (!item.hidden) shown += 1;
    }
    noMatch.hidden = shown > 0 || wanted === '';
  };
  search.input.addEventListener('input', applySearch);
  render(
    ctx,
    t('admin.heading'),
    alert,
    h(
      'section',
      { class: 'account-section', 'aria-labelledby': 'people-heading' },
      h('h2', { id: 'people-heading' }, t('admin.peopleHeading')),
      addPersonForm(peopleContext),
      truncated,
      search.wrapper,
      people,
      noMatch,
    ),
    h(
      'section',
      { class: 'account-section', 'aria-labelledby': 'admin-sessions-heading' },
      h('h2', { id: 'admin-sessions-heading' }, t('admin.sessionsHeading')),
      sessions,
      tokens.element,
      status,
    ),
    ...applications.sections,
    h('section', { class: 'account-section', 'aria-labelledby': 'explain-heading' }, h('h2', { id: 'explain-heading' }, t('admin.explainHeading')), form),
    audit.section,
    h('p', { class: 'actions' }, h('a', { href: '/account' }, t('admin.backToAccount'))),
  );
  ctx.root.classList.add('wide');
  try {
    if (await refresh()) {
      await applications.load();
      await audit.load();
    }
  } catch (e) {
    if (!(e instanceof UnreachableError)) throw e;
    showAlert(alert, unreachable());
  }
}
