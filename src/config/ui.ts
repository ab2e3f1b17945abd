import { UI_LANGUAGE_TAGS, uiLanguageTag } from '../domain/ui-languages';
import type { EnvReader } from './env';
import { boolean, options, text, type Parser } from './option-spec';

/** The ui section: what the login pages show (title, forgot-password text, background, languages). */

/** The forgot-password text of USERS accounts (and the demo's); see {@link defaultForgotPasswordMessage}. */
export const DEFAULT_FORGOT_PASSWORD_MESSAGE =
  'Accounts are configured by the administrator in the USERS environment variable. Ask them to reset your password.';

/** One language of the login UI, by its catalog's tag (case-insensitive). */
const uiLanguage: Parser<string> = (raw, name) => {
  const tag = uiLanguageTag(raw);
  return tag !== null ? { ok: true, value: tag } : { ok: false, problem: `${name} must be one of ${UI_LANGUAGE_TAGS.join(', ')}` };
};
/** Languages of the login UI, comma- or space-separated, in the order the menu lists them (duplicates dropped). */
const uiLanguageList: Parser<readonly string[]> = (raw, name) => {
  const tags: string[] = [];
  for (const item of raw.split(/[\s,]+/).filter((s) => s !== '')) {
    const tag = uiLanguageTag(item);
    if (tag === null) return { ok: false, problem: `${name} lists a language the UI does not have: use ${UI_LANGUAGE_TAGS.join(', ')}` };
    if (!tags.includes(tag)) tags.push(tag);
  }
  return { ok: true, value: tags };
};
/**
 * A URL the UI may put in CSS `url("…")` and the CSP in `img-src`: `http:`/`https:` without
 * credentials, or a path on the login host. Only URL characters outside quotes, spaces, brackets and
 * backslashes are allowed, so neither the stylesheet value nor the CSP header can be broken out of
 * (no `javascript:`, `data:` or `expression(` either).
 */
export const backgroundImage: Parser<string> = (raw, name) => {
  const problem = {
    ok: false,
    problem: `${name} must be an http(s) URL or a path on the login host starting with / (no quotes, spaces, brackets or backslashes)`,
  } as const;
  if (!/^[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+$/.test(raw)) return problem;
  if (raw.startsWith('/')) return raw.startsWith('//') ? problem : { ok: true, value: raw };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return problem;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.hostname === '') return problem;
  return { ok: true, value: url.href };
};

export const UI_OPTIONS = options({
  APP_TITLE: { group: 'gateway', parse: text, fallback: 'Portcullis', doc: { default: '`Portcullis`', meaning: 'title shown by the UI' } },
  FORGOT_PASSWORD_MESSAGE: {
    group: 'gateway',
    parse: text,
    fallback: undefined,
    doc: {
      default: 'a text naming the configured stores (`USERS`, the users file, LDAP, the OAuth providers)',
      meaning: 'shown on the forgot-password page',
    },
  },
  BACKGROUND_IMAGE: {
    group: 'gateway',
    parse: backgroundImage,
    fallback: '',
    doc: {
      default: 'none',
      meaning:
        "page background of the login UI (also `backgroundImage` in `/api/app`, which tinyauth's UI requires): an `http(s)://` URL (its origin is added to the pages' `img-src`) or a path on the login host starting with `/`. Quotes, spaces, brackets and backslashes are refused, so the value cannot break out of the CSS it is placed in",
    },
  },
  UI_LANGUAGE: {
    group: 'gateway',
    parse: uiLanguage,
    fallback: '',
    doc: {
      default: "the visitor's browser chooses",
      meaning: `the one language of every login page, whatever the browser prefers (no language menu): ${UI_LANGUAGE_TAGS.join(', ')}`,
    },
  },
  UI_LANGUAGES: {
    group: 'gateway',
    parse: uiLanguageList,
    fallback: [] as readonly string[],
    doc: {
      default: 'all',
      meaning:
        "the languages the login pages' menu offers, comma-separated; a browser wanting none of them gets the first (see [the login UI](ui.md#languages))",
    },
  },
  DISABLE_CONTINUE: { group: 'gateway', parse: boolean, fallback: false, doc: { default: '`false`', meaning: 'skip the "continue to …" page after login' } },
});

/**
 * Where accounts live, for the default forgot-password text (the UI translates that default).
 * `/api/app` reports it as src/adapters/http/app-context.ts's copy of this shape, which stays free
 * of imports for the UI's compiler; composition hands one to the other, so the compiler keeps them in step.
 */
export interface ForgotPasswordStores {
  readonly users: boolean;
  readonly usersFile: boolean;
  readonly ldap: boolean;
  /** The OAuth providers' names, as their buttons show them. */
  readonly providers: readonly string[];
}

export interface UiConfig {
  readonly appTitle: string;
  readonly forgotPasswordMessage: string;
  /** The stores the default forgot-password text names, or null when FORGOT_PASSWORD_MESSAGE is set (the UI translates the default only). */
  readonly forgotPasswordStores: ForgotPasswordStores | null;
  readonly disableContinue: boolean;
  /** BACKGROUND_IMAGE: an http(s) URL or a path on the login host, or '' for none. */
  readonly backgroundImage: string;
  /** UI_LANGUAGE: the login UI's one language (a catalog tag), or '' to let the browser choose. */
  readonly uiLanguage: string;
  /** UI_LANGUAGES: the languages the UI's menu offers, in order; empty for all. */
  readonly uiLanguages: readonly string[];
}

/** The UI options; `stores` says where accounts live, for the default forgot-password text. */
export function readUi(r: EnvReader, stores: ForgotPasswordStores): UiConfig {
  const uiLanguage = r.option(UI_OPTIONS, 'UI_LANGUAGE');
  const uiLanguages = r.option(UI_OPTIONS, 'UI_LANGUAGES');
  if (uiLanguage !== '' && uiLanguages.length > 0 && !uiLanguages.includes(uiLanguage))
    r.problems.push(`UI_LANGUAGE (${uiLanguage}) is not among UI_LANGUAGES (${uiLanguages.join(', ')}): add it there or unset one of them`);
  const message = r.option(UI_OPTIONS, 'FORGOT_PASSWORD_MESSAGE');
  return {
    appTitle: r.option(UI_OPTIONS, 'APP_TITLE'),
    forgotPasswordMessage: message ?? defaultForgotPasswordMessage(stores),
    forgotPasswordStores: message === undefined ? stores : null,
    disableContinue: r.option(UI_OPTIONS, 'DISABLE_CONTINUE'),
    backgroundImage: r.option(UI_OPTIONS, 'BACKGROUND_IMAGE'),
    uiLanguage,
    uiLanguages,
  };
}

/**
 * The forgot-password text when FORGOT_PASSWORD_MESSAGE is unset: it says where the reader's
 * password lives, for each configured store (USERS alone for the demo, whose account is one).
 */
export function defaultForgotPasswordMessage(stores: ForgotPasswordStores): string {
  const local = [stores.users && 'the USERS environment variable', stores.usersFile && "the gateway's users file"].filter(
    (s): s is string => typeof s === 'string',
  );
  const parts: string[] = [];
  if (local.length > 0) parts.push(`Accounts are configured by the administrator in ${local.join(' and ')}. Ask them to reset your password.`);
  if (stores.ldap) parts.push('Accounts of the directory (LDAP): reset your password where your organisation manages its directory, or ask its help desk.');
  if (stores.providers.length > 0) parts.push(`If you sign in with ${stores.providers.join(' or ')}, reset your password there: this gateway never sees it.`);
  return parts.length > 0 ? parts.join(' ') : DEFAULT_FORGOT_PASSWORD_MESSAGE;
}
