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

test('when the stream answers 503 the page polls sync-state every 30 s', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'poll', { note: { type: 'text' } });
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Polled row', note: 'before' } });
  // The stream is refused as a server without the shared message channel refuses it.
  await page.route('**/items/live?*', (route) =>
    route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ success: false, error: { code: 'UNAVAILABLE', message: 'live updates are unavailable' } }),
    }),
  );
  await page.clock.install();
  const polled = page.waitForResponse((r) => r.url().includes('/items/sync-state'));
  await open(page, l.path);
  await expect(page.getByRole('cell', { name: 'before' })).toBeVisible();
  await polled; // the fallback's first poll learns the row's version
  await adminApi.patch(`/lists/${l.listId}/items/1`, { fieldValues: { note: 'after' } });
  await expect(page.getByRole('cell', { name: 'before' })).toBeVisible();
  // Only the clock moving past the next 30 s poll shows the change. The poll
  // is scheduled when the previous one has been handled, which a loaded
  // machine may finish after a first jump of the clock: jump again then.
  await expect(async () => {
    await page.clock.fastForward('00:31');
    await expect(page.getByRole('cell', { name: 'after' })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
});
