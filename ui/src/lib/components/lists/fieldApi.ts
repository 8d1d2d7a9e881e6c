// The field calls of a list or a document library: the field editor of lists
// serves both (a library's custom fields have the same types and settings).
import { api, call } from '../../api/client';
import type { Field } from './model';

/** What the field editor needs of its owner: a list, or a library (kind). */
export type FieldOwner = { id: string; nodeId: string; fields?: Field[] | null; kind?: 'list' | 'library' };
type Body = { title?: string; fieldType?: string; isRequired?: boolean; sortOrder?: number; settings?: Record<string, unknown> };

export async function createField(o: FieldOwner, body: Body): Promise<void> {
  if (o.kind === 'library') await call(api.POST('/api/v1/libraries/{id}/fields', { params: { path: { id: o.id } }, body }));
  else await call(api.POST('/api/v1/lists/{listId}/fields', { params: { path: { listId: o.id } }, body: body as never }));
}

export async function updateField(o: FieldOwner, fieldId: string, body: Body): Promise<void> {
  if (o.kind === 'library') await call(api.PATCH('/api/v1/libraries/{id}/fields/{fieldId}', { params: { path: { id: o.id, fieldId } }, body }));
  else await call(api.PATCH('/api/v1/lists/{listId}/fields/{fieldId}', { params: { path: { listId: o.id, fieldId } }, body }));
}

export async function deleteField(o: FieldOwner, fieldId: string): Promise<void> {
  if (o.kind === 'library') await call(api.DELETE('/api/v1/libraries/{id}/fields/{fieldId}', { params: { path: { id: o.id, fieldId } } }));
  else await call(api.DELETE('/api/v1/lists/{listId}/fields/{fieldId}', { params: { path: { listId: o.id, fieldId } } }));
}
