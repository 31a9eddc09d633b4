// The language the app asks the server to answer in (docs/decisions/045): the language on the
// screen, sent as Accept-Language on every request (the API client, file uploads, the outbox's
// sync on the page and in the service worker), so that a refusal's message is in it too. No
// i18next here: the service worker imports this module, and it has no screens.

/** The app's languages (the same as src/client/i18n/index.ts LANGUAGES). */
type Language = 'en' | 'zh';

/** Each language as an Accept-Language value. */
const TAGS: Record<Language, string> = { en: 'en', zh: 'zh-CN' };

let current: Language = 'en';

/** Called when the screens switch language (applyLanguage). */
export function setRequestLanguage(language: Language): void {
  current = language;
}

/** The language requests ask for now. */
export function requestLanguage(): Language {
  return current;
}

/** The Accept-Language value of a language; of the one on screen when none is given. */
export function acceptLanguage(language: Language = current): string {
  return TAGS[language];
}

/** The header every request carries: the language on screen. */
export function requestLanguageHeaders(language: Language = current): { 'accept-language': string } {
  return { 'accept-language': acceptLanguage(language) };
}

/**
 * A fetch that adds the language header to each request (the outbox's sync, whose requests are
 * made by src/client/outbox/sync-core.ts with the fetch it is given). A header the request sets
 * itself is kept.
 */
export function fetchInLanguage(doFetch: typeof fetch, language?: () => Language): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (!headers.has('accept-language')) headers.set('accept-language', acceptLanguage(language?.() ?? current));
    return doFetch(input, { ...init, headers });
  };
}
