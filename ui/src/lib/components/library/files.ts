// Document library helpers: the file model, sizes in words, download and
// preview addresses, and uploads through XMLHttpRequest (fetch cannot report
// upload progress) with the CSRF header every cookie write carries.
import { ApiError, csrfHeader, type Schemas } from '../../api/client';
import { formatNumber, t } from '../../i18n/index.svelte';
import type { Field } from '../lists/model';

export type FileRec = Schemas['FileOut'];
export type Library = Schemas['LibraryOut'];
export type FileVersion = Schemas['FileVersion'];

/** A library's custom fields in the shape the field editors of lists take. */
export function libraryFields(lib: Library): Field[] {
  return [...(lib.fields ?? [])]
    .sort((a, b) => a.sortOrder - b.sortOrder)
    .map((f) => ({ ...f, listId: lib.id, editable: true, is_system: false }));
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return t('lib.bytes', { n: formatNumber(bytes) });
  if (bytes < 1024 * 1024) return t('lib.kb', { n: formatNumber(Math.round(bytes / 102.4) / 10) });
  return t('lib.mb', { n: formatNumber(Math.round(bytes / (1024 * 102.4)) / 10) });
}

const base = (libraryId: string) => `/api/v1/libraries/${encodeURIComponent(libraryId)}/files`;

/** The download address of a file, or of one of its versions. */
export function downloadUrl(libraryId: string, ref: number | string, version?: string): string {
  return `${base(libraryId)}/${ref}/download${version ? `?version=${encodeURIComponent(version)}` : ''}`;
}

/** The inline address the preview frames: the API answers inline only for
 * images, PDF and plain text, always with CSP sandbox and nosniff. */
export function previewUrl(libraryId: string, f: FileRec): string {
  return `${base(libraryId)}/${f.id}/download?inline=true&v=${encodeURIComponent(f.updated_at)}`;
}

export type PreviewKind = 'image' | 'pdf' | 'text' | null;

export function previewKind(mime: string): PreviewKind {
  const m = mime.split(';')[0]!.trim().toLowerCase();
  if (['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'].includes(m)) return 'image';
  if (m === 'application/pdf') return 'pdf';
  if (m === 'text/plain') return 'text';
  return null;
}

export type UploadHandle = { promise: Promise<{ status: number; file: FileRec }>; abort: () => void };

/** Uploads one file into a folder (parentId null: the root), reporting progress. */
export function upload(libraryId: string, parentId: number | null, file: File, progress: (loaded: number, total: number) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<{ status: number; file: FileRec }>((resolve, reject) => {
    xhr.open('POST', base(libraryId));
    xhr.setRequestHeader(csrfHeader.name, csrfHeader.value);
    xhr.setRequestHeader('Idempotency-Key', crypto.randomUUID());
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => progress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const body = xhr.response as { data?: FileRec; error?: Schemas['ErrorInfo'] } | null;
      if (xhr.status >= 200 && xhr.status < 300 && body?.data) resolve({ status: xhr.status, file: body.data });
      else reject(new ApiError(xhr.status, body?.error));
    };
    xhr.onerror = () => reject(new TypeError('network'));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    const form = new FormData();
    if (parentId !== null) form.append('parentId', String(parentId));
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
