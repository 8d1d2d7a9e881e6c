// Search (issue 28, item 4): a word found in an item, a PDF's text and a page,
// each hit opened from its result; the type and section filters; an empty
// result that offers to remove the filters; a user who may see only the page
// gets only the page; keyboard-only search; axe and screenshots.
import { admin, type Api, checkA11y, expect, screenshots, signIn, test } from './fixtures';
import { pdf } from './pdfkit';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

async function seed(adminApi: Api, s: string, word: string) {
  const open = await adminApi.post<{ id: string }>('/nodes', { title: `Open ${s}`, slug: `open-${s}` });
  const closed = await adminApi.post<{ id: string }>('/nodes', { title: `Closed ${s}`, slug: `closed-${s}` });
  const list = await adminApi.post<{ id: string }>('/lists', { nodeId: closed.id, title: 'Animals', slug: 'animals' });
  await adminApi.post(`/lists/${list.id}/items`, { fieldValues: { title: `The ${word} item` } });
  const lib = await adminApi.post<{ id: string }>('/libraries', { nodeId: closed.id, title: 'Papers', slug: 'papers' });
  const up = await adminApi.request.post(`/api/v1/libraries/${lib.id}/files`, {
    headers: { Authorization: `Bearer ${adminApi.token}` },
    multipart: { file: { name: 'study.pdf', mimeType: 'application/pdf', buffer: pdf(word) } },
  });
  expect(up.status(), await up.text()).toBe(201);
  await adminApi.post('/pages', { nodeId: open.id, title: 'Field notes', slug: 'field-notes', content: `<p>Seen: a ${word} at dawn.</p>` });
  // the PDF's text is extracted by a background job
  await expect.poll(async () => (await adminApi.get<unknown[]>(`/search?q=${word}`)).length, { timeout: 30_000 }).toBe(3);
  return { open, closed };
}

test('search finds an item, a PDF and a page and opens each; filters; empty result', async ({ page, adminApi }) => {
  test.setTimeout(150_000);
  const s = uniq();
  const word = `zebra${s}`;
  await seed(adminApi, s, word);
  await page.goto('/');
  await signIn(page, admin.login, admin.password);
  // keyboard only: the header's search box, Enter, then Tab to a result
  await page.getByRole('searchbox', { name: 'Search the portal' }).focus();
  await page.keyboard.type(word);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: `Results for “${word}”: 3` })).toBeVisible();
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results.getByRole('heading', { level: 2 })).toHaveCount(3);
  await expect(results.locator('mark').first()).toHaveText(word);
  await checkA11y(page, 'search results');
  await screenshots(page, 'search', 'en');

  // each hit opens: the item in its list, the file's panel in its library, the page
  await results.getByRole('link', { name: `The ${word} item` }).first().click();
  await expect(page).toHaveURL(new RegExp(`/closed-${s}/lists/animals\\?item=1`));
  await expect(page.getByRole('dialog', { name: 'Item 1' })).toBeVisible();
  await page.goBack();
  await results.getByRole('link', { name: 'study.pdf' }).first().click();
  await expect(page).toHaveURL(new RegExp(`/closed-${s}/libraries/papers\\?file=1`));
  await expect(page.getByRole('dialog', { name: 'Properties of study.pdf' })).toBeVisible();
  await page.goBack();
  await results.getByRole('link', { name: 'Field notes' }).first().click();
  await expect(page).toHaveURL(new RegExp(`/open-${s}/pages/field-notes$`));
  // The answer to the unfiltered query coming back is held up: it arrives
  // after the filtered one and must not replace it.
  const unfiltered = (u: string) => u.includes('/api/v1/search?') && !u.includes('type=');
  await page.route((u) => unfiltered(u.href), async (route) => {
    await new Promise((r) => setTimeout(r, 1500));
    await route.continue();
  });
  const late = page.waitForResponse((r) => unfiltered(r.url()));
  await page.goBack();

  // filters: by type, by section; an empty result offers to remove them
  await page.getByLabel('Type').selectOption('file');
  await expect(results.getByRole('heading', { level: 2 })).toHaveCount(1);
  await late;
  await page.unrouteAll();
  await expect(results.getByRole('heading', { level: 2 })).toHaveCount(1);
  await expect(results.getByRole('link', { name: 'study.pdf' }).first()).toBeVisible();
  await page.getByLabel('Search in this section').selectOption({ label: `Open ${s}` });
  await expect(page.getByRole('status').filter({ hasText: 'with these filters' })).toBeVisible();
  await page.getByRole('button', { name: 'Remove filters' }).click();
  await expect(results.getByRole('heading', { level: 2 })).toHaveCount(3);

  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.reload();
  await expect(page.getByRole('status').filter({ hasText: `Найдено для «${word}»: 3` })).toBeVisible();
  await checkA11y(page, 'search results (ru)');
  await screenshots(page, 'search', 'ru');
  await page.evaluate(() => localStorage.setItem('core.lang', 'en'));
});

test('a user who may see only the page finds only the page', async ({ adminApi, browser, baseURL }) => {
  test.setTimeout(120_000);
  const s = uniq();
  const word = `okapi${s}`;
  const { open } = await seed(adminApi, s, word);
  const login = `seeker-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Seeker-pass-1', displayName: `Seeker ${s}` });
  await adminApi.post('/permissions', { principalType: 'user', principalId: user.id, resourceType: 'node', resourceId: open.id, permissionLevel: 'view' });
  const ctx = await browser.newContext({ baseURL });
  const page = await ctx.newPage();
  await page.goto(`/search?q=${word}`);
  await signIn(page, login, 'Seeker-pass-1');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(page.getByRole('status').filter({ hasText: `Results for “${word}”: 1` })).toBeVisible();
  await expect(results.getByRole('heading', { level: 2 })).toHaveCount(1);
  await expect(results.getByRole('link', { name: 'Field notes' }).first()).toBeVisible();
  await ctx.close();
});
