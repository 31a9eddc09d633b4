// The language on screen, sent as Accept-Language on every request (the API client, uploads, the outbox's sync on the page and
// in the service worker) so that refusals are worded in it (docs/decisions/045). No i18next here: the service worker imports this.

type Language = 'en' | 'zh';

const TAGS: Record<Language, string> = { en: 'en', zh: 'zh-CN' };

let current: Language = 'en';

export function setRequestLanguage(language: Language): void {
  current = language;
}

export const requestLanguage = (): Language => current;

export const requestLanguageHeaders = (language: Language = current): { 'accept-language': string } => ({ 'accept-language': TAGS[language] });

/** The phone's language: Chinese for any zh tag (zh-CN, zh-Hans, zh-TW...), English otherwise. */
export function phoneLanguage(languages: readonly string[] = navigator.languages?.length ? navigator.languages : [navigator.language]): Language {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'zh') return 'zh';
    if (base === 'en') return 'en';
  }
  return 'en';
}

/** A fetch that adds the language header to each request (for the outbox's sync-core.ts), unless the request sets one. */
export function fetchInLanguage(doFetch: typeof fetch, language?: () => Language): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (!headers.has('accept-language')) headers.set('accept-language', TAGS[language?.() ?? current]);
    return doFetch(input, { ...init, headers });
  };
}
