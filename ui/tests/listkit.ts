// Set-up helpers of the list tests: a node and a list with fields, made
// through the API as the administrator, and opening a list in the console.
import type { Page } from '@playwright/test';
import { admin, expect, signIn, type Api } from './fixtures';

export type Made = { nodeId: string; listId: string; path: string; fields: Record<string, string> };
let n = 0;

/** A node and a list with the given extra fields (internal name -> type and settings). */
export async function makeList(api: Api, name: string, fields: Record<string, { type: string; settings?: object; required?: boolean }> = {}): Promise<Made> {
  const slug = `${name}-${Date.now().toString(36)}-${n++}`;
  const node = await api.post<{ id: string }>('/nodes', { title: `Node ${slug}`, slug });
  const list = await api.post<{ id: string; fields: { id: string; internal_name: string }[] }>('/lists', { nodeId: node.id, title: `List ${name}`, slug: name });
  const ids: Record<string, string> = {};
  for (const f of list.fields) ids[f.internal_name] = f.id;
  let order = 10;
  for (const [internal, f] of Object.entries(fields)) {
    const made = await api.post<{ id: string }>(`/lists/${list.id}/fields`, {
      title: internal[0]!.toUpperCase() + internal.slice(1), internalName: internal, fieldType: f.type,
      isRequired: f.required ?? false, sortOrder: order++, ...(f.settings ? { settings: f.settings } : {}),
    });
    ids[internal] = made.id;
  }
  const r = await api.get<{ path: string }>(`/routes/canonical?type=list&resourceId=${list.id}`);
  return { nodeId: node.id, listId: list.id, path: r.path, fields: ids };
}

/** Opens path signed in as the administrator (signs in on the way when needed). */
export async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  // The session check ends in the sign-in page or the screen; both have a heading.
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible({ timeout: 15_000 });
  const login = page.getByLabel(/^(Login|Логин)$/);
  if (await login.isVisible()) {
    await signIn(page, admin.login, admin.password);
    await expect(login).toHaveCount(0);
  }
  await expect(page.getByRole('status').filter({ hasText: /Loading|Загрузка/ })).toHaveCount(0);
}

/** The rows of the grid body (without group headers and spacers). */
export function gridRows(page: Page) {
  return page.getByRole('table').first().locator('tbody tr:not(.spacer):not(.group)');
}
