import type { PageContext } from './page';

/**
 * MOUNT POINT for the account page's "Passkeys" section (issue 16, part 1). The account page
 * (pages/account.ts) renders an empty, hidden `<section id="passkeys-section"
 * aria-labelledby="passkeys-heading">` and calls this once the page is on screen. Until passkeys
 * land this does nothing and the section stays hidden; the passkeys module replaces this file,
 * fills the section (its own `<h2 id="passkeys-heading">`) and sets `section.hidden = false`.
 */
export function mountPasskeys(section: HTMLElement, ctx: PageContext): void {
  void section;
  void ctx;
}
