// The list screen keeps its state in the query string (view, page, sort,
// filter, q, item, mode, tab) so a reload or a shared link opens the same thing.
import { navigate, route } from '../../router.svelte';
import type { FilterSpec, SortKey } from './model';

/** Changes some query parameters (null removes one) and navigates in place. */
export function setQuery(patch: Record<string, string | number | null | undefined>, opts: { replace?: boolean } = {}): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || v === undefined || v === '') q.delete(k);
    else q.set(k, String(v));
  }
  const s = q.toString();
  const y = window.scrollY;
  navigate(location.pathname + (s ? '?' + s : ''), opts);
  window.scrollTo(0, y);
}

export function param(name: string): string {
  return route.query.get(name) ?? '';
}

/** sort=col:asc,col2:desc */
export function parseSort(s: string): SortKey[] | null {
  if (!s) return null;
  return s.split(',').filter(Boolean).map((p) => {
    const [column, dir] = p.split(':');
    return { column: column ?? '', direction: dir === 'desc' ? 'desc' : 'asc' };
  });
}

export function formatSort(keys: SortKey[]): string {
  return keys.map((k) => `${k.column}:${k.direction}`).join(',');
}

export function parseFilter(s: string): FilterSpec | null {
  if (!s) return null;
  try {
    const f = JSON.parse(s) as FilterSpec;
    return Array.isArray(f.conditions) ? { logic: f.logic === 'or' ? 'or' : 'and', conditions: f.conditions } : null;
  } catch {
    return null;
  }
}
