// A node owner who is not an administrator finds a user in the permissions
// dialog's picker (GET /principals/search, open to every signed-in user) and
// grants them view on the node. (List, library, survey, item and file
// records stay administrators' work, as the authorization model says.)
import { expect, signIn, test, Api } from './fixtures';
import { makeList } from './listkit';

test('a non-administrator node owner grants a user view through the picker', async ({ page, adminApi, request }) => {
  test.setTimeout(120_000);
  const l = await makeList(adminApi, 'owned');
  const s = Date.now().toString(36);
  const owner = await adminApi.post<{ id: string }>('/admin/users', { login: `owner-${s}`, password: 'Owner-pass-1', displayName: `Owner ${s}` });
  await adminApi.post('/admin/users', { login: `friend-${s}`, password: 'Friend-pass-1', displayName: `Friend ${s}` });
  await adminApi.post('/permissions', { resourceType: 'node', resourceId: l.nodeId, principalType: 'user', principalId: owner.id, permissionLevel: 'delete' });
  const friendApi = await Api.signIn(request, `friend-${s}`, 'Friend-pass-1');
  const friendGet = async () => (await request.fetch(`/api/v1/lists/${l.listId}`, { headers: { Authorization: `Bearer ${friendApi.token}` } })).status();
  expect(await friendGet()).not.toBe(200);

  const nodePath = l.path.split('/').slice(0, 2).join('/');
  await page.goto(nodePath);
  await signIn(page, `owner-${s}`, 'Owner-pass-1');
  await page.getByRole('button', { name: 'Permissions', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /^Permissions: Node owned/ });
  await dialog.getByRole('combobox', { name: 'Find a user or group' }).focus();
  await page.keyboard.type(`friend-${s}`);
  await expect(dialog.getByRole('option', { name: new RegExp(`Friend ${s}`) })).toBeVisible();
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Grant' }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('rowheader', { name: new RegExp(`Friend ${s}`) })).toBeVisible();
  // The friend now reads the node's list (view inherited from the node).
  await expect.poll(friendGet).toBe(200);
});
