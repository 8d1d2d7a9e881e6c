// Editing: grid edit mode (three rows, one invalid cell, a new row; one
// quick-edit call), delete with undo through the bin, attachments.
import { readFileSync } from 'node:fs';
import { checkA11y, expect, screenshots, test } from './fixtures';
import { gridRows, makeList, open } from './listkit';

test('grid edit mode: three rows saved in one call, the invalid cell shows its error', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'edit', { amount: { type: 'number', required: true }, note: { type: 'text' } });
  for (const i of [1, 2, 3]) await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: `Item ${i}`, amount: i } });
  await open(page, l.path);
  await page.getByRole('button', { name: 'Edit in grid' }).click();
  await page.getByRole('textbox', { name: 'Note, item 1' }).fill('first note');
  await page.getByRole('textbox', { name: 'Note, item 2' }).fill('second note');
  await page.getByRole('spinbutton', { name: 'Amount, item 3' }).fill('');
  await page.getByRole('button', { name: 'Add row' }).click();
  await page.getByRole('textbox', { name: 'Title, new row' }).fill('Added');
  await page.getByRole('spinbutton', { name: 'Amount, new row' }).fill('7');
  await checkA11y(page, 'grid edit mode');
  await screenshots(page, 'gridedit', 'en');
  const calls: string[] = [];
  page.on('request', (r) => { if (r.url().includes('/quick-edit')) calls.push(r.method()); });
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Saved rows: 3. Rows with errors: 1.')).toBeVisible();
  expect(calls).toEqual(['POST']);
  const amount3 = page.getByRole('spinbutton', { name: 'Amount, item 3' });
  await expect(amount3).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByRole('cell').filter({ hasText: /required/i })).toHaveCount(1);
  await expect(page.getByRole('textbox', { name: 'Note, item 1' })).toHaveValue('first note');
  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.reload();
  await page.getByRole('button', { name: 'Правка в таблице' }).click();
  await page.getByRole('spinbutton', { name: 'Amount, элемент 3' }).fill('');
  await page.getByRole('button', { name: 'Сохранить изменения' }).click();
  await expect(page.getByRole('cell').filter({ hasText: /required/i })).toHaveCount(1);
  await screenshots(page, 'gridedit', 'ru');
  await page.evaluate(() => localStorage.setItem('core.lang', 'en'));
  const items = await adminApi.get<{ field_values: Record<string, unknown> }[]>(`/lists/${l.listId}/items?sort=amount:asc`);
  const notes = items.map((i) => i.field_values[l.fields['note']!]);
  expect(notes).toContain('first note');
  expect(notes).toContain('second note');
  expect(items.map((i) => i.field_values[l.fields['title']!])).toContain('Added');
  expect(items.find((i) => i.field_values[l.fields['title']!] === 'Item 3')!.field_values[l.fields['amount']!]).toBe(3);
});

test('delete to the bin and undo, by keyboard', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'del');
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Keep me' } });
  await open(page, l.path);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete item 1' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText('“Keep me” moved to the recycle bin.')).toBeVisible();
  await expect(gridRows(page)).toHaveCount(0);
  await page.getByRole('button', { name: 'Undo' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('link', { name: 'Keep me' })).toBeVisible();
});

test('attachments: upload with progress, download, delete; history with changes', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'files');
  await adminApi.patch(`/lists/${l.listId}`, { versioningEnabled: true });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'With file' } });
  await adminApi.patch(`/lists/${l.listId}/items/1`, { fieldValues: { title: 'With a file' } });
  await open(page, `${l.path}?item=1`);
  const dlg = page.getByRole('dialog', { name: 'Item 1' });
  await expect(dlg.getByRole('cell', { name: 'With file' })).toBeVisible();
  await expect(dlg.getByRole('cell', { name: 'With a file' })).toBeVisible();
  await dlg.getByLabel('Attach a file').setInputFiles({ name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello, portal') });
  const link = dlg.getByRole('link', { name: 'hello.txt' });
  await expect(link).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  expect(readFileSync((await download.path())!, 'utf8')).toBe('hello, portal');
  page.once('dialog', (d) => void d.accept());
  await dlg.getByRole('button', { name: 'Delete attachment hello.txt' }).click();
  await expect(dlg.getByText('No attachments.')).toBeVisible();
});

test('permissions of the list and of an item open in the one permissions dialog', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'perms');
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Guarded' } });
  await open(page, `${l.path}?item=1`);
  const item = page.getByRole('dialog', { name: 'Item 1' });
  await item.getByRole('button', { name: 'Permissions' }).click();
  const perms = page.getByRole('dialog', { name: /Item 1/ }).last();
  await expect(perms).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(1);
  await item.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Permissions' }).click();
  await expect(page.getByRole('dialog', { name: /List perms/ })).toBeVisible();
});

test('the item form in Russian: required marks, axe, screenshots', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'ru', { amount: { type: 'number', required: true }, stage: { type: 'choice', settings: { choices: ['План', 'Факт'] } } });
  await open(page, l.path);
  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.goto(`${l.path}?mode=new`);
  const dlg = page.getByRole('dialog', { name: 'Новый элемент' });
  await dlg.getByRole('button', { name: 'Сохранить' }).click();
  await expect(dlg.getByText('Поле «Amount» обязательно.')).toBeVisible();
  await checkA11y(page, 'item form (ru)');
  await screenshots(page, 'itemform', 'ru');
  await page.evaluate(() => localStorage.setItem('core.lang', 'en'));
});
