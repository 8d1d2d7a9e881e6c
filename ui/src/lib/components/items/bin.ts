// Undo of a delete: the item went to its node's recycle bin; the entry the
// delete answered is restored (POST .../restore).
import { api, call } from '../../api/client';
import { ApiError } from '../../api/client';

export async function undoDelete(nodeId: string, entryId: string | null): Promise<void> {
  if (!entryId) throw new ApiError(404, { code: 'NOT_FOUND', message: 'recycle bin' });
  await call(api.POST('/api/v1/nodes/{nodeId}/recycle-bin/{entryId}/restore', { params: { path: { nodeId, entryId } } }));
}
