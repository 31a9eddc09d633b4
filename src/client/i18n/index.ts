// One language per screen (decision 038): i18next with react-i18next. English is bundled (the product's language and the
// sign-in page's default); Simplified Chinese is a chunk of its own, fetched only when the phone or the Profile switch asks for it.
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en } from './en';
import { phoneLanguage, setRequestLanguage } from './request-language';
import { storage } from '../lib/storage';

export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Where the Profile's choice is kept (local storage). Without it, the phone's language picks. */
export const LANGUAGE_KEY = 'language';

/** Each language's name in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', zh: '简体中文' };

export const i18n = i18next.createInstance();
void i18n.use(initReactI18next).init({
  lng: 'en',
  fallbackLng: 'en',
  resources: { en: { translation: en } },
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
} as Parameters<typeof i18n.init>[0]);

const asLanguage = (value: string | null | undefined): Language | null => ((LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : null);

export { phoneLanguage };

/** The language the server drew the page in (data-language, docs/decisions/045); null for a page it did not draw (the service worker's copy). */
export const pageLanguage = (): Language | null => asLanguage(typeof document !== 'undefined' ? document.documentElement.dataset['language'] : undefined);

/** The language the app starts in: the Profile's choice, else the page shell's (so the screen keeps it), else the phone's. */
export const startLanguage = (): Language => asLanguage(storage.read(LANGUAGE_KEY)) ?? pageLanguage() ?? phoneLanguage();

let primeLocaleLoaded = false;

export async function applyLanguage(language: Language): Promise<void> {
  // Only Chinese is ever fetched (English is in from the start); the kinds' texts are in their schemas (x-kind.i18n, x-i18n).
  if (!i18n.hasResourceBundle(language, 'translation')) i18n.addResourceBundle(language, 'translation', (await import('./zh')).zh);
  // PrimeReact's words first, so the screens re-render in one language (English, its default, needs none at first).
  if (language !== 'en' || primeLocaleLoaded) {
    const { setPrimeLocale } = await import('./primereact-locale');
    primeLocaleLoaded = true;
    setPrimeLocale(language);
  }
  await i18n.changeLanguage(language);
  setRequestLanguage(language);
  document.documentElement.lang = language === 'zh' ? 'zh-CN' : 'en';
  document.title = i18n.t('app.name');
}

export async function chooseLanguage(language: Language): Promise<void> {
  // Storage blocked: the choice holds for this visit.
  storage.write(LANGUAGE_KEY, language);
  await applyLanguage(language);
}

/** A text of the current language, for code outside React components (toasts from plain modules). */
export const t = i18n.t.bind(i18n);
