// The texts of export and import (i18n/en/sheets.ts, i18n/ru/sheets.ts),
// kept out of the shared table: they travel with the screens that use them,
// so the first screen does not load them.
import en from '../../i18n/en/sheets';
import ru from '../../i18n/ru/sheets';
import { i18n, t as shared, type TextKey } from '../../i18n/index.svelte';

export type SheetsKey = keyof typeof en;

/** The text of key in the current language, with {name} placeholders filled;
 * keys of the shared table (dialog.close, …) are passed on to it. */
export function t(key: SheetsKey | TextKey, vars?: Record<string, string | number>): string {
  if (!(key in en)) return shared(key as TextKey, vars);
  const text = (i18n.lang === 'ru' ? ru : en)[key as SheetsKey];
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
