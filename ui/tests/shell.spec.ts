// The shell: navigation (node tree, the node's menu, breadcrumbs), the user
// menu by keyboard, language remembered, search, profile, phone layout, error
// pages, and a revoked session that returns to sign-in and then to the page.
import { admin, checkA11y, expect, signIn, test, type Api } from './fixtures';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

async function tree(api: Api) {
  const s = uniq();
  const top = await api.post<{ id: string; slug: string }>('/nodes', { title: `Dept ${s}`, slug: `dept-${s}` });
  const sub = await api.post<{ id: string; slug: string }>('/nodes', { title: `Team ${s}`, slug: `team-${s}`, parentId: top.id });
  await api.post(`/nodes/${top.id}/menu/items`, { title: `Handbook ${s}`, link: 'https://example.com/handbook' });
  return { s, top, sub, path: `/dept-${s}/team-${s}` };
}

test('navigation, breadcrumbs and the node menu follow the route', async ({ page, adminApi }) => {
  const { s, sub, path } = await tree(adminApi);
  // An old hash-style link lands on the canonical path.
  await page.goto(`/#/nodes/${sub.id}`);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Team ${s}` })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${path}$`));
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
  await expect(crumbs.getByRole('link', { name: `Dept ${s}` })).toHaveAttribute('href', `/dept-${s}`);
  await expect(crumbs.getByText(`Team ${s}`)).toHaveAttribute('aria-current', 'page');
  const sections = page.getByRole('navigation', { name: 'Sections' });
  await expect(sections.getByRole('link', { name: `Team ${s}` })).toHaveAttribute('aria-current', 'page');
  // The child node inherits the parent's menu.
  await expect(page.getByRole('navigation', { name: 'Section menu' }).getByRole('link', { name: `Handbook ${s}` })).toBeVisible();
  await sections.getByRole('link', { name: `Dept ${s}` }).click();
  await expect(page).toHaveURL(new RegExp(`/dept-${s}$`));
  await expect(page.getByRole('heading', { level: 1, name: `Dept ${s}` })).toBeVisible();
});

test('user menu by keyboard: profile, language remembered, sign out', async ({ page }) => {
  await page.goto('/');
  await signIn(page, admin.login, admin.password);
  const menuButton = page.getByRole('button', { name: /User menu of/ });
  await menuButton.focus();
  await page.keyboard.press('Enter');
  await expect(menuButton).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('Escape');
  await expect(menuButton).toHaveAttribute('aria-expanded', 'false');
  await expect(menuButton).toBeFocused();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'My profile' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'My profile' })).toBeVisible();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByText('Administrator', { exact: true }).first()).toBeVisible();
  await checkA11y(page, 'profile');

  await menuButton.focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Русский' }).focus();
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/me/preferences') && r.request().method() === 'PATCH');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Мой профиль' })).toBeVisible();
  expect((await saved).ok()).toBe(true);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Мой профиль' })).toBeVisible();
  await page.getByRole('button', { name: /Меню пользователя/ }).click();
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'My profile' })).toBeVisible();

  // The menu stays open after a language switch.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('the search box submits to the search screen', async ({ page }) => {
  await page.goto('/');
  await signIn(page, admin.login, admin.password);
  await page.getByRole('searchbox', { name: 'Search the portal' }).fill('budget 2026');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/search\?q=budget%202026$/);
  await expect(page.getByRole('status').filter({ hasText: 'budget 2026' })).toBeVisible();
});

test('on a phone the navigation sits behind a menu button', async ({ page, adminApi }) => {
  const { s, path } = await tree(adminApi);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(path);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Team ${s}` })).toBeVisible();
  const toggle = page.getByRole('button', { name: 'Menu', exact: true });
  const sections = page.getByRole('navigation', { name: 'Sections' });
  await expect(sections).toBeHidden();
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(sections).toBeVisible();
  await sections.getByRole('link', { name: `Dept ${s}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Dept ${s}` })).toBeVisible();
  await expect(sections).toBeHidden();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('unknown and forbidden pages say which; a section under a hidden one links to its own path', async ({ page, adminApi, browser, baseURL }) => {
  await page.goto('/no-such-section-anywhere');
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();

  const s = uniq();
  const hidden = await adminApi.post<{ id: string }>('/nodes', { title: `Secret ${s}`, slug: `secret-${s}` });
  const open = await adminApi.post<{ id: string }>('/nodes', { title: `Open ${s}`, slug: 'open', parentId: hidden.id });
  const login = `viewer-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Viewer-pass-1', displayName: `Viewer ${s}` });
  await adminApi.post('/permissions', { resourceType: 'node', resourceId: open.id, principalType: 'user', principalId: user.id, permissionLevel: 'view' });
  const ctx = await browser.newContext({ baseURL });
  const p2 = await ctx.newPage();
  await p2.goto(`/secret-${s}`);
  await signIn(p2, login, 'Viewer-pass-1');
  await expect(p2.getByRole('heading', { name: 'No access' })).toBeVisible();
  await expect(p2.getByText('You do not have permission to open this page.')).toBeVisible();
  const link = p2.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: `Open ${s}` });
  await expect(link).toHaveAttribute('href', `/secret-${s}/open`);
  await link.click();
  await expect(p2.getByRole('heading', { level: 1, name: `Open ${s}` })).toBeVisible();
  await expect(p2.getByRole('group', { name: 'Section actions' })).toHaveCount(0);
  await ctx.close();
});

test('a revoked session returns to sign-in and then to the page the user was on', async ({ page, adminApi, context, request }) => {
  const { s, path } = await tree(adminApi);
  await page.goto(path);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Team ${s}` })).toBeVisible();

  // Sign the browser's session out from another client, with its cookie.
  const cookie = (await context.cookies()).find((c) => c.name === 'core_token');
  expect(cookie, 'the session cookie').toBeTruthy();
  const r = await request.post('/api/v1/auth/logout', {
    headers: { Cookie: `core_token=${cookie!.value}`, 'X-Requested-With': 'CorePortal' },
  });
  expect(r.status(), await r.text()).toBe(200);

  // The next call of the console answers 401: back to sign-in, address kept.
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: `Dept ${s}` }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('Your session ended. Sign in again to continue.')).toBeVisible();
  await checkA11y(page, 'sign-in (session ended)');
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Dept ${s}` })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/dept-${s}$`));
});

test('the skip link takes the keyboard past the header and the navigation', async ({ page, adminApi }) => {
  const { s, path } = await tree(adminApi);
  await page.goto(path);
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('heading', { level: 1, name: `Team ${s}` })).toBeVisible();
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await skip.focus();
  await expect(skip).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`${path}$`));
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.closest('main') != null)).toBe(true);
});
