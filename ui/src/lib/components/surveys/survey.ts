// Survey helpers shared by the catalog, builder, taking and results screens.
import type { Schemas } from '../../api/client';
import type { TextKey } from '../../i18n/index.svelte';

export type Question = Schemas['SurveyQuestion'];
export type QType = Question['type'];
export const qtypes: QType[] = ['single', 'multiple', 'text', 'number', 'date', 'user', 'users'];
export const hasOptions = (t: QType) => t === 'single' || t === 'multiple';
export const typeKey = (t: QType | string) => `surveys.type.${t}` as TextKey;
export const statusKey = (s: string) => `surveys.status.${s}` as TextKey;

/** The node's path of a survey route (/a/b/surveys/x/edit -> /a/b). */
export function nodePathOf(path: string): string {
  const i = path.lastIndexOf('/surveys');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** A fresh id for a question or option: letters and digits. */
export function newId(prefix: string, taken: string[]): string {
  for (let n = taken.length + 1; ; n++) {
    const id = `${prefix}${n}`;
    if (!taken.includes(id)) return id;
  }
}
