// Interface texts in Russian and English. The language comes from the user's
// saved preference, else the browser, and is remembered in localStorage.
// Each area of the console keeps its texts in en/<area>.ts and ru/<area>.ts;
// the type of the English file is the contract the Russian one satisfies.
import enShell from './en/shell';
import ruShell from './ru/shell';
import enNodes from './en/nodes';
import ruNodes from './ru/nodes';
import enPerms from './en/perms';
import ruPerms from './ru/perms';
import enLists from './en/lists';
import ruLists from './ru/lists';
import enGrid from './en/grid';
import ruGrid from './ru/grid';
import enItems from './en/items';
import ruItems from './ru/items';
import enLibrary from './en/library';
import ruLibrary from './ru/library';
import enPages from './en/pages';
import ruPages from './ru/pages';
import enSurveys from './en/surveys';
import ruSurveys from './ru/surveys';

const en = { ...enShell, ...enNodes, ...enPerms, ...enLists, ...enGrid, ...enItems, ...enLibrary, ...enPages, ...enSurveys };
export type TextKey = keyof typeof en;
const ru: Record<TextKey, string> = { ...ruShell, ...ruNodes, ...ruPerms, ...ruLists, ...ruGrid, ...ruItems, ...ruLibrary, ...ruPages, ...ruSurveys };

export type Lang = 'en' | 'ru';
const storageKey = 'core.lang';

function initial(): Lang {
  const saved = globalThis.localStorage?.getItem(storageKey);
  if (saved === 'en' || saved === 'ru') return saved;
  const nav = globalThis.navigator?.language ?? 'en';
  return nav.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export const i18n = $state<{ lang: Lang; timeZone: string | undefined }>({ lang: initial(), timeZone: undefined });

/** Switches the interface language and remembers it on this browser. */
export function setLang(lang: Lang): void {
  i18n.lang = lang;
  globalThis.localStorage?.setItem(storageKey, lang);
  document.documentElement.lang = lang;
}

/** The text of key in the current language, with {name} placeholders filled. */
export function t(key: TextKey, vars?: Record<string, string | number>): string {
  const text = (i18n.lang === 'ru' ? ru : en)[key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

/** A date (or date and time) as the user's language writes it. */
export function formatDate(value: string | Date, withTime = false): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return String(value);
  const style: Intl.DateTimeFormatOptions = withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' };
  return new Intl.DateTimeFormat(i18n.lang, { ...style, timeZone: i18n.timeZone }).format(d);
}

/** A number as the user's language writes it. */
export function formatNumber(value: number): string {
  return new Intl.NumberFormat(i18n.lang).format(value);
}

/** The filter placeholders in the user's language; the API's spelling is Russian. */
export function placeholderLabel(value: string): string {
  if (i18n.lang === 'ru') return value;
  return value.replace('[Я]', '[Me]').replace('[Сегодня]', '[Today]');
}
