import { admin, checkA11y, expect, screenshots, signIn, test } from './fixtures';

test('a wrong password is refused in words, the right one opens the portal', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await checkA11y(page, 'sign-in');
  await screenshots(page, 'signin', 'en');
  await signIn(page, admin.login, 'not-the-password');
  await expect(page.getByRole('alert')).toHaveText('Wrong login or password.');
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('link', { name: 'Core Portal' })).toBeVisible();
});

test('the sign-in page speaks Russian to a Russian browser', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ locale: 'ru-RU', baseURL });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Вход' })).toBeVisible();
  await checkA11y(page, 'sign-in (ru)');
  await screenshots(page, 'signin', 'ru');
  await context.close();
});
