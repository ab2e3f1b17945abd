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
  readonly configuredProviders: readonly string[];
  /** Every login offered, with the name its button shows (tinyauth v4's `providers`); `username` has `oauth: false`. */
  readonly providers: readonly { readonly id: string; readonly name: string; readonly oauth: boolean }[];
}
