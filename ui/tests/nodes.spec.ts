// Node pages: create a node through the form (keyboard only), the node's
// content and child nodes, the menu editor (add, move), the recycle bin
// (restore), a new list, axe and screenshots in both languages.
import { admin, checkA11y, expect, screenshots, signIn, test } from './fixtures';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

test('create a node and a subsection through the form, by keyboard only', async ({ page }) => {
  const s = uniq();
  await page.goto('/');
  await signIn(page, admin.login, admin.password);
  await page.getByRole('link', { name: 'New section' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'New section' })).toBeVisible();
  await page.getByLabel('Title').focus();
  await page.keyboard.type(`Sales ${s}`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('Bad Slug!');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByLabel('Address name (slug)')).toHaveAttribute('aria-invalid', 'true');
  await page.getByLabel('Address name (slug)').fill('');
  await page.getByLabel('Address name (slug)').focus();
  await page.keyboard.type(`sales-${s}`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/sales-${s}$`));
  await expect(page.getByRole('heading', { level: 1, name: `Sales ${s}` })).toBeVisible();

  await page.getByRole('link', { name: 'New subsection' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: `New section in Sales ${s}` })).toBeVisible();
  await page.getByLabel('Title').focus();
  await page.keyboard.type('North');
  await page.keyboard.press('Tab');
  await page.keyboard.type('north');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/sales-${s}/north$`));
  await expect(page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: `Sales ${s}` })).toBeVisible();

  // Rename through the edit form.
  await page.getByRole('link', { name: 'Edit section' }).click();
  await page.getByLabel('Title').fill('North-East');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'North-East' })).toBeVisible();
});

test('the menu editor adds and moves items; the menu shows them', async ({ page, adminApi }) => {
  const s = uniq();
  await adminApi.post('/nodes', { title: `Menus ${s}`, slug: `menus-${s}` });
  await page.goto(`/menus-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'Edit menu' }).click();
  const editor = page.getByRole('region', { name: 'Menu of this section' });
  for (const [title, link] of [['First', 'https://example.com/1'], ['Second', `/menus-${s}`]]) {
    await editor.getByLabel('Title').last().fill(title!);
    await editor.getByLabel('Link').last().fill(link!);
    await editor.getByLabel('Link').last().press('Enter');
    await expect(editor.getByRole('button', { name: `Edit ${title!}` })).toBeVisible();
  }
  const menu = page.getByRole('navigation', { name: 'Section menu' });
  await expect(menu.getByRole('link')).toHaveText(['First', 'Second']);
  // Keyboard: move Second up; focus stays on the moved item's button.
  await editor.getByRole('button', { name: 'Move Second up' }).focus();
  await page.keyboard.press('Enter');
  await expect(menu.getByRole('link')).toHaveText(['Second', 'First']);
  // Nest First into Second, then out again.
  await editor.getByRole('button', { name: 'Nest First into the item above' }).click();
  await expect(menu.locator('ul ul').getByRole('link', { name: 'First' })).toBeVisible();
  await editor.getByRole('button', { name: 'Move First out of its parent' }).click();
  await expect(menu.locator('ul ul')).toHaveCount(0);
  // A bad link is refused in words on its field.
  await editor.getByLabel('Title').last().fill('Broken');
  await editor.getByLabel('Link').last().fill('#/no/such/thing');
  await editor.getByRole('button', { name: 'Add item' }).click();
  await expect(editor.getByRole('alert')).toBeVisible();
  await checkA11y(page, 'menu editor');
});

test('the recycle bin restores a deleted list', async ({ page, adminApi }) => {
  const s = uniq();
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Bin ${s}`, slug: `bin-${s}` });
  const list = await adminApi.post<{ id: string }>('/lists', { nodeId: node.id, title: `Old list ${s}`, slug: `old-${s}` });
  await adminApi.delete(`/lists/${list.id}`);
  await page.goto(`/bin-${s}`);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Bin ${s}` })).toBeVisible();
  await expect(page.getByRole('link', { name: `Old list ${s}` })).toHaveCount(0);
  await page.getByRole('button', { name: 'Recycle bin' }).focus();
  await page.keyboard.press('Enter');
  const bin = page.getByRole('region', { name: 'Recycle bin' });
  await expect(bin.getByRole('rowheader', { name: `Old list ${s}` })).toBeVisible();
  await bin.getByRole('button', { name: `Restore Old list ${s}` }).focus();
  await page.keyboard.press('Enter');
  await expect(bin.getByText('The recycle bin is empty.')).toBeVisible();
  await expect(page.getByRole('link', { name: `Old list ${s}` })).toHaveAttribute('href', `/bin-${s}/lists/old-${s}`);
});

test('a new list from the node page opens the list', async ({ page, adminApi }) => {
  const s = uniq();
  await adminApi.post('/nodes', { title: `Lists ${s}`, slug: `lists-${s}` });
  await page.goto(`/lists-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'New list', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'New list' });
  await dialog.getByLabel('Title').fill('Contracts');
  await dialog.getByLabel('Address name (slug)').fill('contracts');
  await dialog.getByLabel('Description').fill('Signed contracts');
  await dialog.getByRole('button', { name: 'Create list' }).click();
  await expect(page).toHaveURL(new RegExp(`/lists-${s}/lists/contracts$`));
  await page.goto(`/lists-${s}`);
  await expect(page.getByRole('link', { name: 'Contracts' })).toBeVisible();
});

test('move a node under another one, by keyboard', async ({ page, adminApi }) => {
  const s = uniq();
  await adminApi.post('/nodes', { title: `Target ${s}`, slug: `target-${s}` });
  await adminApi.post('/nodes', { title: `Mover ${s}`, slug: `mover-${s}` });
  await page.goto(`/mover-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'Move', exact: true }).focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: `Move Mover ${s}` });
  // Focus starts on the dialog's first control (Close); Tab reaches the select.
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByLabel('Parent section')).toBeFocused();
  await dialog.getByLabel('Parent section').selectOption({ label: `Target ${s}` });
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Move' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/target-${s}/mover-${s}$`));
  await expect(page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: `Target ${s}` })).toBeVisible();
});

test('a node with content is refused deletion in words; an empty one is deleted', async ({ page, adminApi }) => {
  const s = uniq();
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Del ${s}`, slug: `del-${s}` });
  await adminApi.post('/nodes', { title: `Child ${s}`, slug: 'child', parentId: node.id });
  await page.goto(`/del-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'Delete section' }).click();
  const dialog = page.getByRole('dialog', { name: `Delete Del ${s}?` });
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(dialog.getByRole('alert')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Delete section' })).toBeFocused();
  await page.getByRole('link', { name: `Child ${s}` }).first().click();
  await page.getByRole('button', { name: 'Delete section' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(new RegExp(`/del-${s}$`));
  await expect(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: `Child ${s}` })).toHaveCount(0);
});

test('node page: axe and screenshots in English and Russian', async ({ page, adminApi, browser, baseURL }) => {
  test.setTimeout(150_000); // two users or two languages, screenshots at two widths
  const s = uniq();
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Operations ${s}`, slug: `ops-${s}`, description: 'Daily operations of the office.' });
  await adminApi.post('/nodes', { title: 'Facilities', slug: 'facilities', parentId: node.id });
  await adminApi.post('/lists', { nodeId: node.id, title: 'Requests', slug: 'requests', description: 'Service requests' });
  await adminApi.post(`/nodes/${node.id}/menu/items`, { title: 'Requests', link: `/ops-${s}/lists/requests` });
  await page.goto(`/ops-${s}`);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Operations ${s}` })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Facilities' }).first()).toBeVisible();
  await checkA11y(page, 'node page');
  await screenshots(page, 'node', 'en');

  const ctx = await browser.newContext({ baseURL, locale: 'ru-RU' });
  const ru = await ctx.newPage();
  await ru.goto(`/ops-${s}`);
  await signIn(ru, admin.login, admin.password);
  await expect(ru.getByRole('heading', { level: 1, name: `Operations ${s}` })).toBeVisible();
  await expect(ru.getByRole('heading', { name: 'Подразделы' })).toBeVisible();
  await checkA11y(ru, 'node page (ru)');
  await screenshots(ru, 'node', 'ru');
  await ctx.close();
});
