// Value shapes of the field types (SPEC "Field types and value formats") and
// small helpers the display and editor components share.
import { api, call } from '../../api/client';

export type PersonRef = { principalType: 'user' | 'group'; id: string; display: string };
export type LookupRef = { itemId: number; display: string };
export type LinkValue = { url: string; description?: string };

/** A value that may be one entry or several, as a list. */
export function many<T>(v: unknown): T[] {
  if (v === null || v === undefined || v === '') return [];
  return (Array.isArray(v) ? v : [v]) as T[];
}

/** Links only to http(s) and mailto addresses are clickable. */
export function safeUrl(url: string): string | null {
  return /^(https?:|mailto:)/i.test(url.trim()) ? url.trim() : null;
}

/** Two letters for an avatar placeholder. */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts[1]?.[0] ?? '')).toUpperCase();
}

const canonical = new Map<string, Promise<string | null>>();

/** The console path of a list or library (cached), for links to lookup targets. */
export function resourcePath(type: 'list' | 'library', id: string): Promise<string | null> {
  const key = type + ':' + id;
  let p = canonical.get(key);
  if (!p) {
    p = call(api.GET('/api/v1/routes/canonical', { params: { query: { type, resourceId: id } } }))
      .then((r) => (r as { path?: string }).path ?? null)
      .catch(() => null);
    canonical.set(key, p);
  }
  return p;
}
