// The node tree the signed-in user may see (GET /nodes, a flat array with
// parentId), shared by the navigation, breadcrumbs and node pages. Screens
// that create, rename, move or delete nodes call reloadNodes().
import { api, call, type Schemas } from './api/client';

export type Node = Schemas['Node'];
export type TreeNode = Node & { children: TreeNode[]; path: string };

export const nodes = $state<{ list: Node[]; loaded: boolean; error: unknown; prefixes: Record<string, string> }>({
  list: [],
  loaded: false,
  error: null,
  prefixes: {},
});

/** A visible node whose parent the user may not see starts the tree at its
 * level; its canonical path (parents' slugs included) comes from the API. */
async function loadPrefixes(list: Node[]): Promise<void> {
  const ids = new Set(list.map((n) => n.id));
  const orphans = list.filter((n) => n.parentId && !ids.has(n.parentId));
  const prefixes: Record<string, string> = {};
  await Promise.all(
    orphans.map(async (n) => {
      try {
        const r = await call(api.GET('/api/v1/routes/canonical', { params: { query: { type: 'node', nodeId: n.id } } }));
        prefixes[n.id] = r.path.slice(0, r.path.length - n.slug.length - 1);
      } catch {
        // left at the top level: the link resolves to 404 and says so
      }
    }),
  );
  nodes.prefixes = prefixes;
}

let pending: Promise<void> | null = null;

/** Loads (or reloads) the tree. */
export function reloadNodes(): Promise<void> {
  pending = (async () => {
    try {
      const list = (await call(api.GET('/api/v1/nodes'))) ?? [];
      await loadPrefixes(list);
      nodes.list = list;
      nodes.error = null;
    } catch (err) {
      nodes.error = err;
    } finally {
      nodes.loaded = true;
    }
  })();
  return pending;
}

/** Loads the tree once. */
export function ensureNodes(): Promise<void> {
  return pending ?? reloadNodes();
}

/** The tree: roots are nodes without a visible parent; each has its canonical path
 * (slugs chained from the root, as /routes/resolve reads them). */
export function buildTree(list: Node[], prefixes: Record<string, string> = nodes.prefixes): TreeNode[] {
  const byId = new Map<string, TreeNode>();
  for (const n of list) byId.set(n.id, { ...n, children: [], path: '' });
  const roots: TreeNode[] = [];
  for (const n of byId.values()) {
    const parent = n.parentId ? byId.get(n.parentId) : undefined;
    if (parent) parent.children.push(n);
    else roots.push(n);
  }
  const walk = (ns: TreeNode[], prefix: string) => {
    for (const n of ns) {
      n.path = `${prefix}/${n.slug}`;
      walk(n.children, n.path);
    }
  };
  for (const r of roots) walk([r], prefixes[r.id] ?? '');
  return roots;
}

/** The chain from the topmost visible ancestor down to the node id. */
export function chainOf(list: Node[], id: string | null | undefined): Node[] {
  const byId = new Map(list.map((n) => [n.id, n]));
  const chain: Node[] = [];
  let cur = id ? byId.get(id) : undefined;
  while (cur && chain.length < 64) {
    chain.unshift(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return chain;
}

/** The canonical path of a node: its slugs from the root. Null when an
 * ancestor is not visible (the path cannot be built from the tree). */
export function pathOf(list: Node[], id: string): string | null {
  const chain = chainOf(list, id);
  if (!chain.length) return null;
  const top = chain[0]!;
  const prefix = top.parentId === null ? '' : nodes.prefixes[top.id];
  if (prefix === undefined) return null;
  return prefix + chain.map((n) => '/' + n.slug).join('');
}

/** Bumped when a node's menu changes, so the navigation reloads it. */
export const menuState = $state({ version: 0 });
