// Undo after a delete restores the very item deleted: the delete answers its
// recycle-bin entry, so a second item of the same title is not mixed up.
import { expect, test } from './fixtures';
import { gridRows, makeList, open } from './listkit';

test('undo restores the deleted one of two items with the same title', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'twins', { note: { type: 'text' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Twin', note: 'first' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Twin', note: 'second' } });
  // The older twin goes to the bin first, through the API, so a search by title would find the wrong entry.
  await adminApi.delete(`/lists/${l.listId}/items/1`);
  await open(page, l.path);
  await expect(gridRows(page)).toHaveCount(1);
  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Delete item 2' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByText('“Twin” moved to the recycle bin.')).toBeVisible();
  await expect(gridRows(page)).toHaveCount(0);
  await page.getByRole('button', { name: 'Undo' }).focus();
  await page.keyboard.press('Enter');
  await expect(gridRows(page)).toHaveCount(1);
  await expect(gridRows(page).first()).toContainText('second');
  const items = await adminApi.get<{ id: number }[]>(`/lists/${l.listId}/items`);
  expect(items.map((i) => i.id)).toEqual([2]);
});
