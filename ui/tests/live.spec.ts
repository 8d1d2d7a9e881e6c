// Live: a change made through the API to a visible row shows within 2 s;
// a row being edited keeps the user's input and says it changed.
import { expect, test } from './fixtures';
import { makeList, open } from './listkit';

test('a change through the API appears on the visible page within 2 s', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'live', { note: { type: 'text' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Live row', note: 'before' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Edited row', note: 'mine' } });
  await open(page, l.path);
  await expect(page.getByRole('cell', { name: 'before' })).toBeVisible();
  await page.waitForTimeout(300); // the stream is open
  await adminApi.patch(`/lists/${l.listId}/items/1`, { fieldValues: { note: 'after' } });
  await expect(page.getByRole('cell', { name: 'after' })).toBeVisible({ timeout: 2000 });

  await page.getByRole('button', { name: 'Edit in grid' }).click();
  await page.getByRole('textbox', { name: 'Note, item 2' }).fill('my input');
  await adminApi.patch(`/lists/${l.listId}/items/2`, { fieldValues: { note: 'theirs' } });
  await expect(page.getByText(/Changed by .* while you were editing/)).toBeVisible({ timeout: 2000 });
  await expect(page.getByRole('textbox', { name: 'Note, item 2' })).toHaveValue('my input');
});
