// Self-service: changing one's own password (a wrong current password is
// shown on its field, other sessions end, this one continues) and
// preferences kept on the server (language and time zone follow the user).
import { Api, checkA11y, expect, signIn, test } from './fixtures';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

test('a user changes their own password; other sessions end', async ({ page, adminApi, request }) => {
  const login = `pw-${uniq()}`;
  await adminApi.post('/admin/users', { login, password: 'First-pass-1', displayName: `Changer ${login}` });
  const other = await Api.signIn(request, login, 'First-pass-1');

  await page.goto('/');
  await signIn(page, login, 'First-pass-1');
  await page.getByRole('button', { name: /User menu of/ }).click();
  await page.getByRole('link', { name: 'Change password' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Change password' })).toBeVisible();
  await checkA11y(page, 'change password');

  await page.getByLabel('Current password').fill('wrong-guess-1');
  await page.getByLabel('New password', { exact: true }).fill('Second-pass-2');
  await page.getByLabel('Repeat the new password').fill('Second-pass-2');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByLabel('Current password')).toHaveAttribute('aria-invalid', 'true');

  await page.getByLabel('Current password').fill('First-pass-1');
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/v1/auth/change-password') && r.method() === 'POST');
  await page.getByRole('button', { name: 'Change password' }).click();
  // Every console write carries the CSRF header and an Idempotency-Key.
  const headers = (await sent).headers();
  expect(headers['x-requested-with']).toBe('CorePortal');
  expect(headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  await expect(page.getByRole('status').filter({ hasText: 'Password changed' })).toBeVisible();

  // The other session ended; this page goes on with the fresh cookie.
  const r = await request.get('/api/v1/auth/me', { headers: { Authorization: `Bearer ${other.token}` } });
  expect(r.status()).toBe(401);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Change password' })).toBeVisible();
  await Api.signIn(request, login, 'Second-pass-2');
});

test('preferences follow the user to another browser', async ({ page, adminApi, browser, baseURL }) => {
  const login = `pref-${uniq()}`;
  await adminApi.post('/admin/users', { login, password: 'Prefs-pass-1', displayName: `Prefs ${login}` });
  await page.goto('/account/preferences');
  await signIn(page, login, 'Prefs-pass-1');
  await expect(page.getByRole('heading', { level: 1, name: 'Preferences' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Language' }).selectOption('ru');
  await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Настройки' })).toBeVisible();

  const other = await browser.newContext({ locale: 'en-US', baseURL });
  const elsewhere = await other.newPage();
  await elsewhere.goto('/account/preferences');
  await signIn(elsewhere, login, 'Prefs-pass-1');
  await expect(elsewhere.getByRole('heading', { level: 1, name: 'Настройки' })).toBeVisible();
  await expect(elsewhere.getByLabel('Часовой пояс')).toHaveValue('Asia/Tokyo');
  await other.close();
});
