// Item-level permissions through the console: a reader granted view on a
// list sees its items; an administrator stops inheritance on one item in the
// permissions dialog and removes the reader's copied record, and the item
// disappears from the reader's grid while the other stays.
import { expect, signIn, test } from './fixtures';
import { gridRows, makeList, open } from './listkit';

test('breaking inheritance on an item hides it from a reader', async ({ page, adminApi, browser, baseURL }) => {
  test.setTimeout(120_000);
  const l = await makeList(adminApi, 'guarded');
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Open row' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Secret row' } });
  const login = `itemreader-${Date.now().toString(36)}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Item-reader-1', displayName: `Item reader ${login}` });
  await adminApi.post('/permissions', {
    principalType: 'user', principalId: user.id, resourceType: 'node', resourceId: l.nodeId, permissionLevel: 'view',
  });

  const ctx = await browser.newContext({ baseURL });
  const reader = await ctx.newPage();
  await reader.goto(l.path);
  await signIn(reader, login, 'Item-reader-1');
  await expect(gridRows(reader).filter({ hasText: 'Secret row' })).toHaveCount(1);
  await expect(gridRows(reader).filter({ hasText: 'Open row' })).toHaveCount(1);

  await open(page, `${l.path}?item=2`);
  const item = page.getByRole('dialog', { name: 'Item 2' });
  await item.getByRole('button', { name: 'Permissions' }).click();
  const perms = page.getByRole('dialog', { name: /Item 2/ }).last();
  await expect(perms.getByText(/^Your access:/)).toBeVisible(); // settled: the button no longer moves
  await perms.getByRole('button', { name: 'Stop inheriting' }).click();
  await perms.getByRole('button', { name: 'Confirm' }).click();
  await expect(perms.getByRole('button', { name: 'Inherit again' })).toBeVisible();
  await perms.getByRole('button', { name: `Remove permission of Item reader ${login}` }).click();
  await expect(perms.getByRole('button', { name: `Remove permission of Item reader ${login}` })).toHaveCount(0);

  await reader.reload();
  await expect(gridRows(reader).filter({ hasText: 'Open row' })).toHaveCount(1);
  await expect(gridRows(reader).filter({ hasText: 'Secret row' })).toHaveCount(0);
  await ctx.close();
});
