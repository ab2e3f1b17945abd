import type { Answer } from '../api';
import { showAlert } from '../dom';
import { locale, t } from '../i18n';
import { commonProblem } from '../messages';
import { goTo } from '../page';

// What every section of the admin console (ui/src/pages/admin*.ts) shares.

export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
}

/**
 * An admin answer that is not the one asked for: a missing step-up sends the browser to the login
 * page's (it brings the person back here); anything else is said in the alert. True when handled by leaving.
 */
export function leftFor(answer: Answer<string>, alert: HTMLElement): boolean {
  if (answer.code === 'step_up_required' && typeof answer.body.location === 'string') {
    goTo(answer.body.location);
    return true;
  }
  if (answer.code === 'admin_required') showAlert(alert, t('admin.notAdmin'));
  else showAlert(alert, commonProblem(answer as Answer));
  return false;
}
