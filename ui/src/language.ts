/**
 * The page's language: which catalogs exist (the list the build writes into index.html), which one
 * this visitor gets (UI_LANGUAGE, UI_LANGUAGES, the choice remembered in this browser, the
 * browser's languages), fetching it (only that one: English is bundled), `<html lang dir>`, and
 * the language menu every page shows. The choice is kept in local storage, never on the server.
 */
import type { AppContext } from './api';
import { h } from './dom';
import { chooseLanguage, directionOf, t, useCatalog, type Catalog } from './i18n';

/** One catalog as the build lists it: the language's own name, its direction, and the hashed file (none for bundled English). */
interface LocaleEntry {
  readonly name: string;
  readonly dir: 'ltr' | 'rtl';
  readonly href?: string;
}

const STORAGE_KEY = 'portcullis.language';

/** The catalogs the build listed (`<meta name="portcullis-locales" content="{…}">`: data, so the page keeps no inline script). */
function available(): Readonly<Record<string, LocaleEntry>> {
  const text = document.querySelector<HTMLMetaElement>('meta[name="portcullis-locales"]')?.content ?? '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && Object.keys(parsed).length > 0) return parsed as Record<string, LocaleEntry>;
  } catch {
    // An unbuilt page (no list): English only.
  }
  return { en: { name: 'English', dir: 'ltr' } };
}

function remembered(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage refused (privacy settings): the browser's languages decide
  }
}

function remember(language: string): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // Storage refused: the choice lasts this page only.
  }
}

/** Loads a catalog; null when it cannot be fetched or read (the page then stays in English). */
async function fetchCatalog(href: string): Promise<Catalog | null> {
  try {
    const res = await fetch(href, { credentials: 'same-origin' });
    if (!res.ok) return null;
    const body: unknown = await res.json();
    return body !== null && typeof body === 'object' ? (body as Catalog) : null;
  } catch {
    return null;
  }
}

/** Sets `<html lang dir>` for the words on the page. */
function markDocument(language: string, dir: 'ltr' | 'rtl'): void {
  document.documentElement.lang = language;
  document.documentElement.dir = dir;
}

/**
 * Picks the visitor's language, loads its catalog and marks the document. Resolves to the
 * languages the menu offers (one only when UI_LANGUAGE forces it).
 */
export async function startLanguage(app: Pick<AppContext, 'language' | 'languages'> | null): Promise<{ language: string; menu: readonly string[] }> {
  const locales = available();
  const chosen = chooseLanguage({
    available: Object.keys(locales),
    forced: app?.language ?? '',
    allowed: app?.languages ?? [],
    remembered: remembered(),
    preferred: navigator.languages ?? [navigator.language],
  });
  const entry = locales[chosen.language];
  let language = 'en';
  if (entry?.href !== undefined) {
    const catalog = await fetchCatalog(entry.href);
    if (catalog !== null) {
      useCatalog(chosen.language, catalog);
      language = chosen.language;
      markDocument(language, directionOf(catalog));
    }
  } else if (entry !== undefined) language = chosen.language;
  if (language === 'en') markDocument('en', 'ltr');
  return { language, menu: chosen.menu };
}

/**
 * The language menu under the card: a disclosure listing each language in its own name (with its
 * own `lang`, so screen readers pronounce it right). A choice is remembered and the page reloads in
 * it. Nothing when there is only one language to offer.
 */
export function languageMenu(language: string, menu: readonly string[]): HTMLElement | null {
  if (menu.length < 2) return null;
  const locales = available();
  const nameOf = (tag: string): string => locales[tag]?.name ?? tag;
  const buttons = menu.map((tag) => {
    const button = h(
      'button',
      {
        type: 'button',
        class: 'language-option',
        lang: tag,
        dir: locales[tag]?.dir ?? 'ltr',
        'data-language': tag,
        'aria-current': tag === language ? 'true' : undefined,
      },
      nameOf(tag),
    );
    button.addEventListener('click', () => {
      remember(tag);
      if (tag !== language) location.reload();
      else (button.closest('details') as HTMLDetailsElement | null)?.removeAttribute('open');
    });
    return h('li', {}, button);
  });
  return h(
    'nav',
    { class: 'languages', 'aria-label': t('language.menu') },
    h('details', {}, h('summary', { id: 'language-summary' }, t('language.current', { language: nameOf(language) })), h('ul', {}, ...buttons)),
  );
}
