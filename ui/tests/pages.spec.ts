// Pages and people (issue 28, items 2 and 5): an editor writes a page with a
// heading, a list, a link and an image (uploaded into the node's library)
// in the rich-text editor, and another user reads what the server stored;
// a colleague's profile card opens from a person column and walks to their
// manager and back down.
import { admin, checkA11y, expect, screenshots, signIn, test, Api } from './fixtures';
import { makeList, open } from './listkit';

// A 2×2 PNG (red), small enough to inline.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');

test('an editor writes a page with heading, list, link and image; another user reads it', async ({ page, adminApi, browser }) => {
  test.setTimeout(120_000);
  const s = Date.now().toString(36);
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Docs ${s}`, slug: `docs-${s}` });
  await adminApi.post('/libraries', { nodeId: node.id, title: 'Images', slug: `img-${s}` });
  const made = await adminApi.post<{ id: string }>('/pages', { nodeId: node.id, title: `Guide ${s}`, slug: 'guide', content: '' });
  const { path } = await adminApi.get<{ path: string }>(`/routes/canonical?type=page&resourceId=${made.id}`);

  await open(page, path);
  await expect(page.getByRole('heading', { level: 1, name: `Guide ${s}` })).toBeVisible();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const area = page.getByRole('textbox', { name: 'Page content' });
  await expect(area).toBeVisible();
  const bar = page.getByRole('toolbar', { name: 'Formatting' });
  await area.click();
  await bar.getByRole('button', { name: 'Heading', exact: true }).click();
  await page.keyboard.type('Welcome aboard');
  await page.keyboard.press('Enter');
  await bar.getByRole('button', { name: 'Bulleted list' }).click();
  await page.keyboard.type('First step');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Second step');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Handbook');
  await page.keyboard.press('Shift+Home');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await bar.getByRole('button', { name: 'Link', exact: true }).click();
  await page.getByLabel('Link address').fill('https://example.org/handbook');
  await page.getByRole('button', { name: 'Apply link' }).click();
  await expect(area).toBeFocused();
  await page.keyboard.press('End');
  // The editor learns of a caret moved by End from the browser's
  // selectionchange event, which comes after the key; Enter waits for it as a
  // person's next key would.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Images are uploaded into the library "Images".')).toBeVisible();
  await page.getByLabel('Insert image').setInputFiles({ name: 'red-dot.png', mimeType: 'image/png', buffer: png });
  await expect(area.locator('img')).toHaveCount(1);
  await checkA11y(page, 'page editor');
  await screenshots(page, 'page-editor', 'en');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByText('Saved. This is the page as the server stored it.')).toBeVisible();

  const stored = await adminApi.get<{ content: string }>(`/pages/${made.id}`);
  expect(stored.content).toContain('<h2>Welcome aboard</h2>');
  expect(stored.content).toMatch(/<a href="https:\/\/example.org\/handbook"[^>]*rel="nofollow/);
  expect(stored.content).toContain('/download');
  const article = page.locator('article.page-content');
  expect(await article.innerHTML()).toBe(stored.content);

  // Another user with view on the node reads the page as stored.
  const login = `reader-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Reader-pass-1', displayName: `Reader ${s}` });
  await adminApi.post('/permissions', { resourceType: 'node', resourceId: node.id, principalType: 'user', principalId: user.id, permissionLevel: 'view' });
  const ctx = await browser.newContext({ baseURL: process.env.CORE_TEST_URL });
  const reader = await ctx.newPage();
  await reader.goto(path);
  await signIn(reader, login, 'Reader-pass-1');
  await expect(reader.getByRole('heading', { level: 2, name: 'Welcome aboard' })).toBeVisible();
  await expect(reader.getByRole('listitem').filter({ hasText: 'Second step' })).toBeVisible();
  await expect(reader.getByRole('link', { name: 'Handbook' })).toHaveAttribute('href', 'https://example.org/handbook');
  const img = reader.locator('article.page-content img');
  await expect(img).toBeVisible();
  await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(2);
  await expect(reader.getByRole('button', { name: 'Edit', exact: true })).toHaveCount(0);
  await checkA11y(reader, 'page');
  await ctx.close();

  // Russian screenshots of the editor.
  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.reload();
  await page.getByRole('button', { name: 'Изменить', exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Содержимое страницы' })).toBeVisible();
  await checkA11y(page, 'page editor (ru)');
  await screenshots(page, 'page-editor', 'ru');
});

test('a profile card opens from a person column and walks to the manager and back', async ({ page, adminApi }) => {
  test.setTimeout(90_000);
  const s = Date.now().toString(36);
  const boss = await adminApi.post<{ id: string }>('/admin/users', { login: `boss-${s}`, password: 'Boss-pass-12', displayName: `Boss ${s}`, email: `boss-${s}@example.org` });
  const mate = await adminApi.post<{ id: string }>('/admin/users', { login: `mate-${s}`, password: 'Mate-pass-12', displayName: `Mate ${s}`, email: `mate-${s}@example.org` });
  await adminApi.patch(`/admin/users/${mate.id}`, { managerUserId: boss.id });
  const l = await makeList(adminApi, 'staff', { owner: { type: 'person' } });
  await adminApi.post(`/lists/${l.listId}/items/quick-edit`, {
    creates: [{ clientRowId: 'r1', fieldValues: { title: 'Onboarding', owner: { principalType: 'user', id: mate.id, display: `Mate ${s}` } } }],
  });

  await open(page, l.path);
  await page.getByRole('table').first().getByRole('link', { name: `Mate ${s}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Mate ${s}` })).toBeVisible();
  await expect(page.getByRole('link', { name: `mate-${s}@example.org` })).toBeVisible();
  const chart = page.getByRole('navigation', { name: 'Organisation chart' });
  await expect(chart.getByText(`Mate ${s}`)).toHaveAttribute('aria-current', 'page');
  await checkA11y(page, 'profile card');
  await screenshots(page, 'profile-card', 'en');
  await chart.getByRole('link', { name: `Boss ${s}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Boss ${s}` })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/people/${boss.id}$`));
  await page.getByRole('navigation', { name: 'Organisation chart' }).getByRole('link', { name: `Mate ${s}` }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Mate ${s}` })).toBeVisible();
  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Оргструктура' })).toBeVisible();
  await checkA11y(page, 'profile card (ru)');
  await screenshots(page, 'profile-card', 'ru');
  void admin;
  void Api;
});
