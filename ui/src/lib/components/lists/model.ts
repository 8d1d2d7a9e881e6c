// The list model the console works with: a list, its fields, views and items
// as the API returns them, and the calls that load them.
import { api, call, callPaged, type Schemas } from '../../api/client';

export type ListInfo = Schemas['ListOut'];
export type Field = Schemas['FieldOut'];
export type View = Schemas['ListView'];
export type ViewConfig = Schemas['ViewConfig'];
export type Item = Schemas['ItemOut'];
export type Values = Record<string, unknown>;
export type SortKey = { column: string; direction: 'asc' | 'desc' };
export type Condition = { column: string; operator: string; value?: unknown };
export type FilterSpec = { logic: 'and' | 'or'; conditions: Condition[] };
export type Group = { value: unknown; count: number };
export type ListMeta = {
  page: number; limit: number; total: number; totalPages: number; totalInView: number;
  fields?: Field[]; groups?: Group[]; view?: View; schemaTag?: string;
};

export const fieldTypes = [
  'text', 'multiline_text', 'html_text', 'choice', 'number', 'date', 'datetime', 'boolean', 'lookup', 'person', 'link',
] as const;
export type FieldType = (typeof fieldTypes)[number];

/** Filter operators of the listing API, in the order the builder offers them. */
export const operators = ['eq', 'ne', 'contains', 'startsWith', 'gt', 'gte', 'lt', 'lte', 'isEmpty', 'isNotEmpty', 'in'] as const;
/** Operators that take no value. */
export const valueless = new Set<string>(['isEmpty', 'isNotEmpty']);
/** Meta columns that a view may sort and filter by. */
export const metaColumns = ['__created_at', '__updated_at'] as const;

/** The fields of a view's columns (all visible fields when the view names none). */
export function viewColumns(fields: Field[], cfg: ViewConfig | undefined): Field[] {
  const cols = cfg?.columns ?? [];
  if (cols.length === 0) return fields.filter((f) => f.internal_name !== 'item_number');
  const out: Field[] = [];
  for (const c of cols) {
    const f = fields.find((x) => x.id === c || x.internal_name === c);
    if (f) out.push(f);
  }
  return out;
}

/** The field a column reference (id or internal name) names. */
export function fieldOf(fields: Field[], ref: string): Field | undefined {
  return fields.find((f) => f.id === ref || f.internal_name === ref);
}

export async function loadList(id: string): Promise<ListInfo> {
  return call(api.GET('/api/v1/lists/{id}', { params: { path: { id } } }));
}

export async function loadViews(listId: string): Promise<View[]> {
  return (await call(api.GET('/api/v1/lists/{listId}/views', { params: { path: { listId } } }))) ?? [];
}

export type ItemQuery = { viewId?: string; page?: number; limit?: number; sort?: SortKey[]; filter?: FilterSpec; q?: string };

export async function loadItems(listId: string, q: ItemQuery): Promise<{ items: Item[]; meta: ListMeta }> {
  const query: Record<string, string | number> = {};
  if (q.viewId) query['viewId'] = q.viewId;
  if (q.page) query['page'] = q.page;
  if (q.limit) query['limit'] = q.limit;
  if (q.sort && q.sort.length) query['sort'] = JSON.stringify(q.sort);
  if (q.filter && q.filter.conditions.length) query['filter'] = JSON.stringify(q.filter);
  if (q.q) query['q'] = q.q;
  const r = await callPaged(api.GET('/api/v1/lists/{listId}/items', { params: { path: { listId }, query } }));
  return { items: r.data ?? [], meta: r.meta as ListMeta };
}

/** True when a value counts as empty (for required marks and group labels). */
export function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}
