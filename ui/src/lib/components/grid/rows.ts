// The rows a grid shows: items, with group headers when the view groups.
import type { Field, Group, Item, Values } from '../lists/model';

export type Row =
  | { kind: 'group'; key: string; label: unknown; count: number }
  | { kind: 'item'; key: string; item: Item | null; clientRowId?: string };

/** The key a group value is compared by (objects as their display). */
export function groupKey(v: unknown): string {
  if (v === null || v === undefined || v === '') return '';
  if (Array.isArray(v)) return v.map(groupKey).join(', ');
  if (typeof v === 'object') {
    const o = v as { display?: string; url?: string };
    return o.display ?? o.url ?? JSON.stringify(v);
  }
  return String(v);
}

/** Items in order with a header before each run of one group value. */
export function buildRows(items: Item[], group: Field | undefined, groups: Group[] | undefined): Row[] {
  const rows: Row[] = [];
  let last: string | null = null;
  for (const item of items) {
    if (group) {
      const v = (item.field_values ?? {})[group.id];
      const k = groupKey(v);
      if (k !== last) {
        const g = groups?.find((x) => groupKey(x.value) === k);
        rows.push({ kind: 'group', key: 'g:' + k + ':' + item.id, label: v, count: g?.count ?? 0 });
        last = k;
      }
    }
    rows.push({ kind: 'item', key: 'i' + item.id, item });
  }
  return rows;
}

/** A draft row of grid edit mode: changed values of an item, or a new row. */
export type Draft = { key: string; itemId?: number; clientRowId?: string; values: Values };
