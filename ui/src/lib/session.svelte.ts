// Who is signed in. The session itself is the HttpOnly core_token cookie the
// API sets; the console only knows the user's card and reacts to 401.
import { api, call, onSessionEnded, type Schemas } from './api/client';
import { i18n, setLang, type Lang } from './i18n/index.svelte';

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
    applyPreferences(session.me.preferences);
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

export type Preferences = Schemas['Preferences'];

/** Applies preferences stored on the server: they follow the user to every
 * browser; what is not chosen follows the browser. */
export function applyPreferences(prefs: Preferences | null | undefined): void {
  if (prefs?.language) setLang(prefs.language as Lang);
  i18n.timeZone = prefs?.timeZone ?? undefined;
}

/** Switches the language and, when signed in, saves it as the user's preference. */
export async function chooseLang(lang: Lang): Promise<void> {
  setLang(lang);
  if (!session.me) return;
  const prefs = await call(api.PATCH('/api/v1/auth/me/preferences', { body: { language: lang } }));
  session.me.preferences = prefs;
}
