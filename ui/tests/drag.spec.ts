// Field order by mouse drag: the dragged field lands before the one it is
// dropped on, and the API's field order changes with it.
import { expect, test } from './fixtures';
import { makeList, open } from './listkit';

test('fields reordered by mouse drag keep the new order in the API', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'drag', { alpha: { type: 'text' }, beta: { type: 'text' }, gamma: { type: 'text' } });
  await open(page, `${l.path}?tab=fields`);
  const row = (name: string) => page.locator('ol.fields li').filter({ has: page.locator('.name', { hasText: new RegExp(`^${name}$`) }) });
  await row('Gamma').dragTo(row('Alpha'));
  await expect(page.getByRole('status').filter({ hasText: 'Gamma is now at position' })).toHaveCount(1);
  const names = await page.locator('ol.fields li .name').allTextContents();
  expect(names.indexOf('Gamma')).toBeLessThan(names.indexOf('Alpha'));
  const fields = await adminApi.get<{ internal_name: string; sortOrder?: number; sort_order?: number }[]>(`/lists/${l.listId}/fields`);
  const order = fields.filter((f) => ['alpha', 'beta', 'gamma'].includes(f.internal_name))
    .sort((a, b) => (a.sortOrder ?? a.sort_order ?? 0) - (b.sortOrder ?? b.sort_order ?? 0)).map((f) => f.internal_name);
  expect(order).toEqual(['gamma', 'alpha', 'beta']);
  await page.reload();
  await expect(row('Gamma')).toBeVisible();
  const again = await page.locator('ol.fields li .name').allTextContents();
  expect(again.indexOf('Gamma')).toBeLessThan(again.indexOf('Alpha'));
});
