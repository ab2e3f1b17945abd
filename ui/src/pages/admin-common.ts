import type { Answer } from '../api';
import { showAlert } from '../dom';
import { t } from '../i18n';
import { commonProblem } from '../messages';
import { goTo } from '../page';

export { when } from '../session-facts';

// What every section of the admin console (ui/src/pages/admin*.ts) shares.

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
