// The upload queue of a library screen: every file with its own progress,
// cancel, and the API's refusal (413, a refused content type, a name taken by
// a folder) in words. Two uploads run at a time.
import { ApiError, api, callPaged } from '../../api/client';
import { errorText } from '../../errors';
import { t } from '../../i18n/index.svelte';
import { upload, type UploadHandle } from './files';

export type Upload = {
  key: number; name: string; size: number; loaded: number;
  state: 'waiting' | 'running' | 'done' | 'version' | 'failed' | 'cancelled';
  newVersion: boolean; message: string; file: File; parentId: number | null; handle?: UploadHandle;
};

/** The names (lower case) of a folder's children, to tell before an upload
 * that a name exists and the upload adds a version. */
async function namesIn(libraryId: string, parentId: number | null): Promise<Set<string>> {
  const names = new Set<string>();
  for (let page = 1; page <= 20; page++) {
    const query = { limit: 500, page, ...(parentId !== null ? { parentId: String(parentId) } : {}) };
    const r = await callPaged(api.GET('/api/v1/libraries/{libraryId}/files', { params: { path: { libraryId }, query } }));
    for (const f of r.data ?? []) names.add(f.name.toLowerCase());
    if (page >= ((r.meta as { totalPages?: number }).totalPages ?? 1)) break;
  }
  return names;
}

let seq = 0;

export class UploadQueue {
  items = $state<Upload[]>([]);
  constructor(private readonly libraryId: string, private readonly done: () => void) {}

  async add(files: File[], parentId: number | null): Promise<void> {
    let names = new Set<string>();
    try { names = await namesIn(this.libraryId, parentId); } catch { /* the upload itself tells */ }
    for (const file of files) {
      this.items.push({ key: ++seq, name: file.name, size: file.size, loaded: 0, state: 'waiting', newVersion: names.has(file.name.toLowerCase()), message: '', file, parentId });
    }
    this.pump();
  }

  private pump(): void {
    const running = this.items.filter((u) => u.state === 'running').length;
    const next = this.items.filter((u) => u.state === 'waiting').slice(0, Math.max(0, 2 - running));
    for (const u of next) void this.run(u);
  }

  private async run(u0: Upload): Promise<void> {
    const u = this.items.find((x) => x.key === u0.key)!;
    u.state = 'running';
    u.handle = upload(this.libraryId, u.parentId, u.file, (loaded, total) => { u.loaded = loaded; u.size = total || u.size; });
    try {
      const r = await u.handle.promise;
      u.loaded = u.size;
      u.state = r.status === 200 ? 'version' : 'done';
      u.message = r.status === 200 ? t('lib.upload.versionAdded') : t('lib.upload.done');
      this.done();
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') {
        u.state = 'cancelled'; u.message = t('lib.upload.cancelled');
      } else {
        u.state = 'failed';
        u.message = err instanceof ApiError && err.status === 413 ? t('lib.upload.tooLarge')
          : err instanceof ApiError ? t('lib.upload.refused', { reason: errorText(err) }) : t('lib.upload.failed');
      }
    } finally {
      u.handle = undefined;
      this.pump();
    }
  }

  cancel(u: Upload): void {
    if (u.state === 'waiting') { u.state = 'cancelled'; u.message = t('lib.upload.cancelled'); return; }
    u.handle?.abort();
  }

  clear(): void {
    this.items = this.items.filter((u) => u.state === 'waiting' || u.state === 'running');
  }
}
