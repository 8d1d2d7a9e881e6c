// Which screen shows a resolved route. Screens load on demand, so the first
// screen carries only what it needs. A route type without a screen yet shows
// a notice naming it.
import type { Component } from 'svelte';
import type { Schemas } from '../lib/api/client';
import { session } from '../lib/session.svelte';

export type Resolved = Schemas['RouteResult'];
export type ScreenProps = { route: Resolved };
type Loader = () => Promise<{ default: Component<ScreenProps> }>;

export const screens: Partial<Record<Resolved['type'], Loader>> = {
  home: () => import('./node/NodeScreen.svelte'),
  node: () => import('./node/NodeScreen.svelte'),
  list: () => import('./list/ListScreen.svelte'),
  library: () => import('./library/LibraryScreen.svelte'),
  page: () => import('./page/PageScreen.svelte'),
  surveys: () => import('./survey/SurveyCatalog.svelte'),
  survey: () => import('./survey/SurveyTake.svelte'),
  survey_new: () => import('./survey/SurveyBuilder.svelte'),
  survey_edit: () => import('./survey/SurveyBuilder.svelte'),
  survey_take: () => import('./survey/SurveyTake.svelte'),
  survey_results: () => import('./survey/SurveyResults.svelte'),
};

/** Console screens at fixed paths (not content routes of the API). */
export const fixedScreens: Record<string, () => Promise<{ default: Component }>> = {
  '/profile': () => import('./profile/Profile.svelte'),
  '/account/password': () => import('./account/Password.svelte'),
  '/account/preferences': () => import('./account/Preferences.svelte'),
  '/search': () => import('./search/SearchScreen.svelte'),
  '/lists/new': () => import('./list/CreateList.svelte'),
  '/pages/new': () => import('./page/CreatePage.svelte'),
  '/people': () => import('./people/PersonCard.svelte'),
  // The administration area: its code loads only for administrators; anyone
  // else gets a small page that shows the API's own refusal (403) in words.
  '/admin': () => (session.me?.is_core_admin ? import('./admin/Admin.svelte') : import('./admin-denied/Denied.svelte')),
};
