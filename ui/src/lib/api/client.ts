// The console's one API client: types generated from the served OpenAPI
// document (schema.d.ts, scripts/ui-client) and openapi-fetch. Every call goes
// to /api/v1 with the session cookie; every write carries the header the API
// requires of cookie-authenticated writes (a cross-site form cannot send it).
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type ErrorInfo = Schemas['ErrorInfo'];

/** The header every cookie-authenticated write must carry (CSRF defence). */
export const csrfHeader = { name: 'X-Requested-With', value: 'CorePortal' } as const;

/** An API refusal in the caller's terms: status, code, message and, for a
 * validation error, the field it names. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(status: number, info: ErrorInfo | undefined) {
    super(info?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = info?.code ?? 'INTERNAL';
    this.details = info?.details ?? {};
    const field = this.details['field'];
    this.field = typeof field === 'string' ? field : undefined;
  }

  /** Seconds to wait, for 429 answers that say so. */
  get retryAfterSeconds(): number | undefined {
    const s = this.details['retryAfterSeconds'];
    return typeof s === 'number' ? s : undefined;
  }
}

type SessionListener = () => void;
const sessionEnded = new Set<SessionListener>();

/** Called when an authenticated call answers 401: the session ended. */
export function onSessionEnded(fn: SessionListener): () => void {
  sessionEnded.add(fn);
  return () => sessionEnded.delete(fn);
}

const writes = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const session: Middleware = {
  onRequest({ request }) {
    if (writes.has(request.method)) request.headers.set(csrfHeader.name, csrfHeader.value);
    // Every POST carries an Idempotency-Key: when the connection drops before
    // the answer arrives, the one retry below cannot create a second copy.
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    return request;
  },
  onResponse({ request, response }) {
    const url = new URL(request.url);
    if (response.status === 401 && !url.pathname.endsWith('/auth/login')) {
      for (const fn of sessionEnded) fn();
    }
    return response;
  },
};

/** fetch that retries a POST once, with the same Idempotency-Key, when the
 * network failed before an answer came (an instance restarting): the server
 * answers the retry with the first answer if the first attempt was saved. */
async function fetchOnceMore(input: Request): Promise<Response> {
  const spare = input.method === 'POST' ? input.clone() : undefined;
  try {
    return await fetch(input);
  } catch (err) {
    if (!spare || !(err instanceof TypeError)) throw err;
    await new Promise((r) => setTimeout(r, 1000));
    return fetch(spare);
  }
}

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin', fetch: fetchOnceMore });
api.use(session);

type Result<D> = { data?: D; error?: unknown; response: Response };

function refusal(error: unknown, response: Response): ApiError {
  return new ApiError(response.status, (error as { error?: ErrorInfo } | undefined)?.error);
}

/** Unwraps an openapi-fetch result: the envelope's data, or throws ApiError. */
export async function call<D extends { data?: unknown }>(p: Promise<Result<D>>): Promise<NonNullable<D['data']>> {
  const { data, error, response } = await p;
  if (!response.ok || error !== undefined) throw refusal(error, response);
  return data?.data as NonNullable<D['data']>;
}

/** Like call, for answers whose envelope also has meta (paged listings). */
export async function callPaged<D extends { data?: unknown; meta?: unknown }>(
  p: Promise<Result<D>>,
): Promise<{ data: NonNullable<D['data']>; meta: NonNullable<D['meta']> }> {
  const { data, error, response } = await p;
  if (!response.ok || error !== undefined) throw refusal(error, response);
  return { data: data?.data as NonNullable<D['data']>, meta: data?.meta as NonNullable<D['meta']> };
}
