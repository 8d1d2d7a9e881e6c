// Undo of a delete: the item went to its node's recycle bin; the newest
// list_item entry with its title is restored (POST .../restore).
import { api, call } from '../../api/client';
import { ApiError } from '../../api/client';

export async function undoDelete(nodeId: string, title: string): Promise<void> {
  const entries = await call(api.GET('/api/v1/nodes/{nodeId}/recycle-bin', { params: { path: { nodeId }, query: { limit: 50 } } }));
  const entry = (entries ?? []).find((e) => e.kind === 'list_item' && e.title === title);
  if (!entry) throw new ApiError(404, { code: 'NOT_FOUND', message: title });
  await call(api.POST('/api/v1/nodes/{nodeId}/recycle-bin/{entryId}/restore', { params: { path: { nodeId, entryId: entry.id } } }));
}
