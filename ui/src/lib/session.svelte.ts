// Who is signed in. The session itself is the HttpOnly core_token cookie the
// API sets; the console only knows the user's card and reacts to 401.
import { api, call, onSessionEnded, type Schemas } from './api/client';

export type Me = Schemas['Card'];

export const session = $state<{ me: Me | null; checked: boolean; ended: boolean }>({
  me: null,
  checked: false,
  ended: false,
});

/** Loads the signed-in user, or leaves me null when there is no session. */
export async function loadMe(): Promise<void> {
  try {
    session.me = await call(api.GET('/api/v1/auth/me'));
  } catch {
    session.me = null;
  } finally {
    session.checked = true;
  }
}

/** Signs out on the server (the cookie is cleared) and forgets the user. */
export async function signOut(): Promise<void> {
  try {
    await api.POST('/api/v1/auth/logout');
  } finally {
    session.me = null;
    session.ended = false;
  }
}

onSessionEnded(() => {
  if (session.me) session.ended = true;
  session.me = null;
});
