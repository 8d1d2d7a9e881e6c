// Surveys in the console (issue 28, item 3): the builder makes a survey
// with one question of each type and publishes it; two users answer it
// (one by keyboard only, one on a 390 px phone); the results show charts
// and the responses; the XLSX export is downloaded and its first row read;
// an anonymous survey's responses carry no names.
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser, Locator, Page } from '@playwright/test';
import { checkA11y, expect, screenshots, signIn, test, type Api } from './fixtures';
import { open } from './listkit';

async function member(adminApi: Api, nodeId: string, login: string, name: string): Promise<void> {
  const u = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Survey-pass-1', displayName: name });
  await adminApi.post('/permissions', { resourceType: 'node', resourceId: nodeId, principalType: 'user', principalId: u.id, permissionLevel: 'view' });
}

async function asUser(browser: Browser, login: string, path: string, width = 1400): Promise<Page> {
  const ctx = await browser.newContext({ baseURL: process.env.CORE_TEST_URL, viewport: { width, height: width < 500 ? 844 : 900 } });
  const page = await ctx.newPage();
  await page.goto(path);
  await signIn(page, login, 'Survey-pass-1');
  return page;
}

/** Presses Tab (at most 5 times) until target has the focus. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let i = 0; i < 5 && !(await target.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(target).toBeFocused();
}

/** The cell texts of row 1 of the first sheet of an XLSX file. */
function firstRow(xlsx: Buffer): string[] {
  const files = unzipSync(new Uint8Array(xlsx));
  const text = (name: string) => (files[name] ? strFromU8(files[name]!) : '');
  const shared = [...text('xl/sharedStrings.xml').matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
  const row = /<row[^>]*r="1"[^>]*>([\s\S]*?)<\/row>/.exec(text('xl/worksheets/sheet1.xml'))?.[1] ?? '';
  return [...row.matchAll(/<c([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)].map((m) => {
    const body = m[2] ?? '';
    const v = /<v>([\s\S]*?)<\/v>/.exec(body)?.[1] ?? body.replace(/<[^>]+>/g, '');
    return /t="s"/.test(m[1]!) ? shared[Number(v)]! : v;
  });
}

test('build a survey of every question type, answer it twice, see charts, responses and the export', async ({ page, adminApi, browser }) => {
  test.setTimeout(360_000);
  const s = Date.now().toString(36);
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Poll ${s}`, slug: `poll-${s}` });
  await member(adminApi, node.id, `ann-${s}`, `Ann ${s}`);
  await member(adminApi, node.id, `bob-${s}`, `Bob ${s}`);
  const cat = await adminApi.get<{ path: string }>(`/routes/canonical?type=surveys&nodeId=${node.id}`);

  // The builder: one question of each type.
  await open(page, cat.path);
  await page.getByRole('link', { name: 'New survey' }).click();
  await page.getByLabel('Title', { exact: true }).fill('Team survey');
  const types = [
    ['Favourite colour', 'Single choice', ['Red', 'Blue']],
    ['Drinks', 'Multiple choice', ['Tea', 'Coffee']],
    ['Comments', 'Text'],
    ['Years here', 'Number'],
    ['Start date', 'Date'],
    ['Mentor', 'Person'],
    ['Team mates', 'People'],
  ] as const;
  for (const [i, q] of types.entries()) {
    await page.getByRole('button', { name: 'Add question' }).click();
    const box = page.getByRole('group', { name: `Question ${i + 1}` });
    await box.getByLabel('Question text').fill(q[0]);
    await box.getByLabel('Type').selectOption({ label: q[1] });
    if (q.length === 3) {
      await box.getByLabel('Option 1', { exact: true }).fill(q[2][0]);
      await box.getByRole('button', { name: 'Add option' }).click();
      await box.getByLabel('Option 2', { exact: true }).fill(q[2][1]);
    }
    if (i === 0) await box.getByLabel('Required', { exact: true }).check();
  }
  await checkA11y(page, 'survey builder');
  await screenshots(page, 'survey-builder', 'en');
  await page.getByRole('button', { name: 'Create survey' }).click();
  await expect(page).toHaveURL(/\/surveys\/team-survey\/edit$/);
  await expect(page.getByText('Draft', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Publish' }).click();
  await expect(page.getByText('Open', { exact: true })).toBeVisible();
  const takePath = `${cat.path}/team-survey/take`;

  // Ann answers by keyboard only.
  const ann = await asUser(browser, `ann-${s}`, takePath);
  await expect(ann.getByRole('heading', { level: 1, name: 'Team survey' })).toBeVisible({ timeout: 20_000 });
  await ann.getByRole('button', { name: 'Submit' }).focus();
  await ann.keyboard.press('Enter');
  await expect(ann.getByRole('alert')).toContainText('Some required questions have no answer: Favourite colour');
  await expect(ann.getByRole('radio', { name: 'Red' })).toBeFocused();
  await ann.keyboard.press('Space');
  await ann.keyboard.press('Tab');
  await ann.keyboard.press('Space'); // Tea
  await ann.keyboard.press('Tab');
  await ann.keyboard.press('Space'); // Coffee
  await ann.keyboard.press('Tab');
  await ann.keyboard.type('Good place');
  await ann.keyboard.press('Tab');
  await ann.keyboard.type('3');
  await ann.keyboard.press('Tab');
  await ann.keyboard.type('11202026');
  await tabTo(ann, ann.getByRole('combobox', { name: 'Mentor' }));
  await ann.keyboard.type(`bob-${s}`);
  await expect(ann.getByRole('option', { name: new RegExp(`Bob ${s}`) })).toBeVisible();
  await ann.keyboard.press('Enter');
  await tabTo(ann, ann.getByRole('combobox', { name: 'Team mates' }));
  await ann.keyboard.type(`bob-${s}`);
  await expect(ann.getByRole('option', { name: new RegExp(`Bob ${s}`) })).toBeVisible();
  await ann.keyboard.press('Enter');
  await tabTo(ann, ann.getByRole('button', { name: 'Submit' }));
  await ann.keyboard.press('Enter');
  await expect(ann.getByText('Thank you, your answers were submitted.')).toBeVisible();
  await ann.reload();
  await expect(ann.getByText('You have already answered this survey.')).toBeVisible();
  await ann.context().close();

  // Bob answers on a phone.
  const bob = await asUser(browser, `bob-${s}`, takePath, 390);
  await expect(bob.getByRole('heading', { level: 1, name: 'Team survey' })).toBeVisible({ timeout: 20_000 });
  await bob.getByRole('radio', { name: 'Blue' }).check();
  await bob.getByRole('checkbox', { name: 'Tea' }).check();
  await bob.getByLabel('Years here').fill('7');
  await checkA11y(bob, 'survey on a phone');
  await screenshots(bob, 'survey-phone', 'en');
  await bob.getByRole('button', { name: 'Submit' }).click();
  await expect(bob.getByText('Thank you, your answers were submitted.')).toBeVisible();
  await bob.context().close();

  // Results: charts, responses with names, the export.
  await page.goto(`${cat.path}/team-survey/results`);
  await expect(page.getByText('Responses: 2')).toBeVisible();
  await expect(page.locator('canvas')).toHaveCount(5); // single, multiple, number, person, people
  const table = page.getByRole('table', { name: 'Responses' });
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('link', { name: `Ann ${s}` })).toBeVisible();
  await expect(table.getByRole('cell', { name: 'Good place' })).toBeVisible();
  await checkA11y(page, 'survey results');
  await screenshots(page, 'survey-results', 'en');
  await page.getByRole('button', { name: 'Export to Excel' }).click();
  const link = page.getByRole('link', { name: /^Download / });
  await expect(link).toBeVisible({ timeout: 20_000 });
  const r = await page.request.get((await link.getAttribute('href'))!);
  expect(r.status()).toBe(200);
  const header = firstRow(await r.body());
  expect(header.slice(0, 3)).toEqual(['Response', 'Respondent', 'Submitted (UTC)']);
  expect(header).toContain('Favourite colour');
  expect(header).toContain('Team mates');

  // The language as a user switches it: saved on the server for this user.
  await page.getByRole('button', { name: /User menu of/ }).click();
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/auth/me/preferences') && r.request().method() === 'PATCH');
  await page.getByRole('button', { name: 'Русский' }).click();
  expect((await saved).ok()).toBe(true);
  await page.reload();
  await expect(page.getByText('Ответов: 2').first()).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Навигационная цепочка' }).getByText('Результаты')).toBeVisible();
  await checkA11y(page, 'survey results (ru)');
  await screenshots(page, 'survey-results', 'ru');
  await page.goto(`${cat.path}/team-survey/edit`);
  await expect(page.getByRole('note')).toContainText('Вопросы заблокированы');
  await screenshots(page, 'survey-builder', 'ru');
  await page.getByRole('button', { name: /Меню пользователя/ }).click();
  await page.getByRole('button', { name: 'English' }).click();
  await expect(page.getByRole('button', { name: /User menu of/ })).toBeVisible();
});

// The administrator's language is a saved preference: whatever a test left,
// the next one starts in English.
test.afterEach(async ({ adminApi }) => {
  await adminApi.patch('/auth/me/preferences', { language: 'en' });
});

test('an anonymous survey shows no names in its responses', async ({ page, adminApi, request }) => {
  test.setTimeout(90_000);
  const s = Date.now().toString(36);
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Anon ${s}`, slug: `anon-${s}` });
  const sv = await adminApi.post<{ id: string }>('/surveys', {
    nodeId: node.id, slug: 'mood', title: 'Mood', definition: { anonymous: true, questions: [{ id: 'q1', type: 'single', title: 'How are you?', required: true, options: [{ id: 'a', text: 'Fine' }, { id: 'b', text: 'Tired' }] }] },
  });
  await adminApi.post(`/surveys/${sv.id}/publish`);
  await adminApi.post(`/surveys/${sv.id}/submit`, { answers: { q1: { optionId: 'a' } } });
  void request;
  const cat = await adminApi.get<{ path: string }>(`/routes/canonical?type=surveys&nodeId=${node.id}`);
  await open(page, `${cat.path}/mood/results`);
  const table = page.getByRole('table', { name: 'Responses' });
  await expect(table.getByRole('cell', { name: 'Fine' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Respondent' })).toHaveCount(0);
  await expect(table).not.toContainText('Administrator');
  await expect(table).not.toContainText('admin');
  await expect(page.getByText('Respondent: hidden (anonymous)')).toBeVisible();
});
