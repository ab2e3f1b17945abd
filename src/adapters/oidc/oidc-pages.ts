/**
 * The few pages the OpenID Connect provider shows itself (logout confirmation, signed out, errors):
 * plain HTML with no script and no inline style, every value escaped.
 */

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function layout(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${head}</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>`;
}

/**
 * The RP-initiated logout confirmation. `form` is the provider's own form (its action and xsrf
 * token, built by the library); the buttons submit it.
 */
export function logoutPage(form: string, clientName: string | null): string {
  const from = clientName === null ? 'An application' : escapeHtml(clientName);
  return layout(
    'Sign out?',
    `<p>${from} asks to sign you out. Signing out ends your session here and in every application you opened with it.</p>
${form}
<p><button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button></p>`,
  );
}

export function loggedOutPage(appUrl: string): string {
  return layout('Signed out', `<p>You are signed out.</p><p><a href="${escapeHtml(appUrl)}/login">Sign in again</a></p>`);
}

/** An error the provider answers with a page (the browser could not be sent back to the application safely). */
/**
 * Front-channel logout (issue 35): each app's logout page in a hidden frame, then on to `next`
 * after two seconds (a meta refresh: the page runs no script). The pages' origins are the only
 * frames its {@link frontchannelPageHeaders} allow.
 */
export function frontchannelLogoutPage(pages: readonly string[], next: string): string {
  const frames = pages.map((p) => `<iframe src="${escapeHtml(p)}" title="Signing out" hidden width="0" height="0"></iframe>`).join('\n');
  return layout(
    'Signing out',
    `<p>Signing you out of your applications…</p>\n${frames}\n<p><a href="${escapeHtml(next)}">Continue</a></p>`,
    `<meta http-equiv="refresh" content="2;url=${escapeHtml(next)}">`,
  );
}

/** The page headers, with the origins of `pages` allowed as frames. */
export function frontchannelPageHeaders(pages: readonly string[]): Record<string, string> {
  const origins = [...new Set(pages.map((p) => new URL(p).origin))].join(' ');
  return { ...PAGE_SECURITY_HEADERS, 'Content-Security-Policy': `default-src 'none'; frame-src ${origins}; base-uri 'none'; frame-ancestors 'none'` };
}

export function errorPage(code: string, description: string): string {
  return layout('Cannot continue', `<p><code>${escapeHtml(code)}</code></p>${description === '' ? '' : `<p>${escapeHtml(description)}</p>`}`);
}
