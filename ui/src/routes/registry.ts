// Which screen shows a resolved route. Screens load on demand, so the first
// screen carries only what it needs. A route type without a screen yet shows
// a notice naming it.
import type { Component } from 'svelte';
import type { Schemas } from '../lib/api/client';

export type Resolved = Schemas['RouteResult'];
export type ScreenProps = { route: Resolved };
type Loader = () => Promise<{ default: Component<ScreenProps> }>;

export const screens: Partial<Record<Resolved['type'], Loader>> = {
  home: () => import('./home/Home.svelte'),
  node: () => import('./home/Home.svelte'),
  list: () => import('./list/ListScreen.svelte'),
};

/** Console screens at fixed paths (not content routes of the API). */
export const fixedScreens: Record<string, () => Promise<{ default: Component }>> = {
  '/lists/new': () => import('./list/CreateList.svelte'),
};
