// The console's router: the address bar is the state. Canonical routes of the
// API (SPEC "Routes") are resolved by GET /routes/resolve; console screens
// that are not content (sign-in, profile, administration) have fixed paths.
export const route = $state<{ path: string; query: URLSearchParams; search: string; hash: string }>({
  path: location.pathname,
  query: new URLSearchParams(location.search),
  search: location.search,
  hash: location.hash,
});

function sync(): void {
  route.path = location.pathname;
  route.query = new URLSearchParams(location.search);
  route.search = location.search;
  route.hash = location.hash;
}

/** Goes to path (with its query) without reloading the page. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  sync();
  window.scrollTo(0, 0);
}

addEventListener('popstate', sync);
addEventListener('hashchange', sync);

/** Click handling for same-origin links: plain left clicks navigate in place;
 * modified clicks (new tab, download) keep the browser's behaviour. */
export function interceptLinks(root: HTMLElement): () => void {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest('a');
    if (!a || a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    if (a.pathname.startsWith('/api/')) return;
    e.preventDefault();
    navigate(a.pathname + a.search + a.hash);
  };
  root.addEventListener('click', onClick);
  return () => root.removeEventListener('click', onClick);
}

/** The path and query of the current location, to come back to after sign-in. */
export function here(): string {
  return location.pathname + location.search;
}

/** The route the current screen shows, as /routes/resolve answered it (null
 * for fixed screens and while resolving): the navigation and breadcrumbs
 * follow its node. */
export const current = $state<{ resolved: import('./api/client').Schemas['RouteResult'] | null }>({ resolved: null });
