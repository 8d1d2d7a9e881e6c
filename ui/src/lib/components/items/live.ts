// Live updates of the rows on screen: the SSE stream items/live (at most 100
// ids per stream, so a page of more rows opens several), and, when the stream
// answers 503 (no shared message backend), polling sync-state every 30 s.
// EventSource is used directly (not the typed client): openapi-fetch cannot
// read a stream; the stream is a GET, so no CSRF header is needed.
import { api, call, type Schemas } from '../../api/client';

export type LiveItem = Schemas['SyncItem'];
export const pollEveryMs = 30_000;
const perStream = 100;

/** Watches ids of listId; onitem gets every change. Returns the stop function. */
export function watchItems(listId: string, ids: number[], onitem: (item: LiveItem) => void): () => void {
  if (ids.length === 0) return () => {};
  const known = new Map<number, string>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const streams: EventSource[] = [];

  async function poll(): Promise<void> {
    for (let i = 0; i < ids.length && !stopped; i += perStream) {
      const chunk = ids.slice(i, i + perStream).join(',');
      try {
        const r = await call(api.GET('/api/v1/lists/{listId}/items/sync-state', { params: { path: { listId }, query: { ids: chunk } } }));
        for (const it of r.items ?? []) {
          const prev = known.get(it.id);
          known.set(it.id, it.updated_at);
          if (prev !== undefined && prev !== it.updated_at) onitem(it);
        }
      } catch {
        // the next poll tries again
      }
    }
  }
  function fallBack(): void {
    if (timer || stopped) return;
    for (const es of streams) es.close();
    void poll();
    timer = setInterval(() => void poll(), pollEveryMs);
  }
  for (let i = 0; i < ids.length; i += perStream) {
    const chunk = ids.slice(i, i + perStream).join(',');
    const es = new EventSource(`/api/v1/lists/${encodeURIComponent(listId)}/items/live?ids=${chunk}`);
    es.addEventListener('item_updated', (e) => {
      try {
        const data = JSON.parse((e as MessageEvent<string>).data) as { item: LiveItem };
        onitem(data.item);
      } catch {
        // a malformed event is ignored
      }
    });
    // A refused stream (503 without the message backend) closes for good;
    // a dropped connection reconnects by itself (readyState CONNECTING).
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) fallBack();
    };
    streams.push(es);
  }
  return () => {
    stopped = true;
    for (const es of streams) es.close();
    if (timer) clearInterval(timer);
  };
}
