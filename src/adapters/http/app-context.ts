/**
 * What `/api/app` reports; global for all users. The login UI (ui/src) imports this type too, so
 * the file stays free of imports: it must type-check under the UI's compiler settings as well.
 */
export interface AppContext {
  readonly title: string;
  readonly genericName: string;
  readonly domain: string;
  readonly forgotPasswordMessage: string;
  readonly oauthAutoRedirect: string;
  readonly disableContinue: boolean;
  /** PASSKEYS: whether the pages offer passkey sign-in and the account page lists passkeys. */
  readonly passkeys: boolean;
  readonly configuredProviders: readonly string[];
  /** Every login offered, with the name its button shows (tinyauth v4's `providers`); `username` has `oauth: false`. */
  readonly providers: readonly { readonly id: string; readonly name: string; readonly oauth: boolean }[];
  /**
   * BACKGROUND_IMAGE: an http(s) URL or a path on the login host, validated at start-up; '' for
   * none. Always a string: tinyauth's login UI refuses an app context without it.
   */
  readonly backgroundImage: string;
  /**
   * Only in the throwaway demo: where a proxy on this machine asks for forward auth (host:port),
   * so the account page can show a ready "protect your first app" snippet. null otherwise: a real
   * gateway tells nobody where its forward-auth listener is.
   */
  readonly demo: { readonly forwardAuth: string } | null;
  /** UI_LANGUAGE: the one language every page is shown in, whatever the browser prefers; '' lets the visitor's browser (and menu) choose. */
  readonly language: string;
  /** UI_LANGUAGES: the languages the menu offers (the first is the default for a browser wanting none of them); empty for every language the UI has. */
  readonly languages: readonly string[];
}
