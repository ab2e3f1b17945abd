/**
 * The languages the login UI has a message catalog for (`ui/locales/<tag>.json`), as BCP 47 tags.
 * UI_LANGUAGE and UI_LANGUAGES are checked against this list at start-up; a unit test
 * (test/unit/ui/catalogs.test.ts) fails when it and the catalog files differ, so adding a language
 * is a copied file plus its tag here. The file stays free of imports: the UI may read it too.
 */
export const UI_LANGUAGE_TAGS = ['en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'pl', 'ja', 'zh-Hans', 'ar'] as const;

/** The listed tag a value names, compared without regard to case (`pt-br` is `pt-BR`); null when none. */
export function uiLanguageTag(value: string): string | null {
  const lower = value.toLowerCase();
  return UI_LANGUAGE_TAGS.find((tag) => tag.toLowerCase() === lower) ?? null;
}
