// The permissions dialog: grant a second user view on a list (picker by
// keyboard), they see the list; removing the grant hides it again; a node
// editor who is not an administrator is offered what they may do only.
import { admin, checkA11y, expect, screenshots, signIn, test } from './fixtures';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

test('grant view on a list to a second user, who then sees it; removing the grant hides it', async ({ page, adminApi, browser, baseURL }) => {
  test.setTimeout(150_000); // two users or two languages, screenshots at two widths
  const s = uniq();
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Shared ${s}`, slug: `shared-${s}` });
  await adminApi.post('/lists', { nodeId: node.id, title: `Budget ${s}`, slug: 'budget' });
  const login = `reader-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Reader-pass-1', displayName: `Reader ${s}` });
  expect(user.id).toBeTruthy();
  // The reader is in a group that gets view on the node through the dialog.
  const group = await adminApi.post<{ id: string }>('/groups', { name: `Readers ${s}`, description: 'node readers' });
  await adminApi.post(`/groups/${group.id}/members`, { userId: user.id });

  await page.goto(`/shared-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'Permissions', exact: true }).click();
  let dialog = page.getByRole('dialog', { name: `Permissions: Shared ${s}` });
  await expect(dialog.getByText('Your access: Full access.')).toBeVisible();
  // Keyboard only: find the group, choose it, grant view on the node.
  await dialog.getByRole('combobox', { name: 'Find a user or group' }).focus();
  await page.keyboard.type(`Readers ${s}`);
  await expect(dialog.getByRole('option', { name: new RegExp(`Readers ${s}`) })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Grant' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('rowheader', { name: new RegExp(`Readers ${s}`) })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // The list inherits the node's rights: the reader sees the node and the list.
  const ctx = await browser.newContext({ baseURL });
  const reader = await ctx.newPage();
  await reader.goto(`/shared-${s}`);
  await signIn(reader, login, 'Reader-pass-1');
  await expect(reader.getByRole('heading', { level: 1, name: `Shared ${s}` })).toBeVisible();
  await expect(reader.getByRole('link', { name: `Budget ${s}` })).toBeVisible();
  // A reader is offered no section actions.
  await expect(reader.getByRole('button', { name: 'Permissions', exact: true })).toHaveCount(0);

  // The administrator grants the reader edit on the list itself through the list's dialog.
  await page.getByRole('button', { name: `Permissions of Budget ${s}` }).click();
  dialog = page.getByRole('dialog', { name: `Permissions: Budget ${s}` });
  await expect(dialog.getByText('Permissions of the containing node and its parents also apply here.')).toBeVisible();
  const picker = dialog.getByRole('combobox', { name: 'Find a user or group' });
  await picker.fill(`reader-${s}`);
  await dialog.getByRole('option', { name: new RegExp(`Reader ${s}`) }).click();
  await dialog.getByLabel('Level').selectOption('edit');
  await dialog.getByRole('button', { name: 'Grant' }).click();
  await expect(dialog.getByRole('row', { name: new RegExp(`Reader ${s}.*Edit`) })).toBeVisible();
  await checkA11y(page, 'permissions dialog');
  await screenshots(page, 'permissions', 'en');
  // Removing it leaves the inherited view.
  await dialog.getByRole('button', { name: `Remove permission of Reader ${s}` }).click();
  await expect(dialog.getByText('No permissions are set on this item itself.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).first().click();

  // Take the group's view on the node away: the reader loses the node and the list.
  await page.getByRole('button', { name: 'Permissions', exact: true }).click();
  dialog = page.getByRole('dialog', { name: `Permissions: Shared ${s}` });
  await dialog.getByRole('button', { name: `Remove permission of Readers ${s}` }).click();
  await expect(dialog.getByRole('rowheader', { name: new RegExp(`Readers ${s}`) })).toHaveCount(0);
  await reader.reload();
  await expect(reader.getByRole('heading', { name: /^(No access|Not found)$/ })).toBeVisible();
  await expect(reader.getByRole('link', { name: `Budget ${s}` })).toHaveCount(0);
  await ctx.close();
});

test('a node editor who is not an administrator manages node permissions, not list permissions', async ({ adminApi, browser, baseURL }) => {
  const s = uniq();
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Edited ${s}`, slug: `edited-${s}` });
  await adminApi.post('/lists', { nodeId: node.id, title: `Plans ${s}`, slug: 'plans' });
  const login = `editor-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Editor-pass-1', displayName: `Editor ${s}` });
  await adminApi.post('/permissions', { resourceType: 'node', resourceId: node.id, principalType: 'user', principalId: user.id, permissionLevel: 'edit' });
  const ctx = await browser.newContext({ baseURL, locale: 'ru-RU' });
  const page = await ctx.newPage();
  await page.goto(`/edited-${s}`);
  await signIn(page, login, 'Editor-pass-1');
  await expect(page.getByRole('heading', { level: 1, name: `Edited ${s}` })).toBeVisible();
  // No list permission buttons for a non-administrator.
  await expect(page.getByRole('button', { name: `Права: Plans ${s}` })).toHaveCount(0);
  await page.getByRole('button', { name: 'Права', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: `Права: Edited ${s}` });
  await expect(dialog.getByText('Ваш доступ: Редактирование.')).toBeVisible();
  await expect(dialog.getByRole('rowheader', { name: new RegExp(`Editor ${s}`) })).toBeVisible();
  await expect(dialog.getByText('Введите хотя бы две буквы.')).toBeVisible();
  // Granting above the own level is refused by the API, in words.
  await adminApi.post('/groups', { name: `Helpers ${s}`, description: '' });
  await dialog.getByRole('combobox', { name: 'Найти пользователя или группу' }).fill(`Helpers ${s}`);
  await dialog.getByRole('option', { name: new RegExp(`Helpers ${s}`) }).click();
  await dialog.getByLabel('Уровень').selectOption('delete');
  await dialog.getByRole('button', { name: 'Выдать' }).click();
  await expect(dialog.getByRole('alert')).toBeVisible();
  await checkA11y(page, 'permissions dialog (ru)');
  await screenshots(page, 'permissions', 'ru');
  await ctx.close();
});
