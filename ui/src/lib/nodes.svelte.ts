// The node tree the signed-in user may see (GET /nodes, a flat array with
// parentId), shared by the navigation, breadcrumbs and node pages. Screens
// that create, rename, move or delete nodes call reloadNodes().
import { api, call, type Schemas } from './api/client';

export type Node = Schemas['Node'];
export type TreeNode = Node & { children: TreeNode[]; path: string };

export const nodes = $state<{ list: Node[]; loaded: boolean; error: unknown }>({ list: [], loaded: false, error: null });

let pending: Promise<void> | null = null;

/** Loads (or reloads) the tree. */
export function reloadNodes(): Promise<void> {
  pending = (async () => {
    try {
      nodes.list = (await call(api.GET('/api/v1/nodes'))) ?? [];
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
export function buildTree(list: Node[]): TreeNode[] {
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
  walk(roots, '');
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
  if (!chain.length || chain[0]!.parentId !== null) return null;
  return chain.map((n) => '/' + n.slug).join('');
}

/** Bumped when a node's menu changes, so the navigation reloads it. */
export const menuState = $state({ version: 0 });
