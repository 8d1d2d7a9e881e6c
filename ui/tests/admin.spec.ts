// The administration area: only administrators see it (others get the API's
// 403 in words and never load its code); users, groups, the schedule editor,
// backups with restore, the log filtered by a correlation id and the
// dashboard's live request figure. Screenshots and axe-core on each screen.
import type { Browser, Page } from '@playwright/test';
import { admin, Api, checkA11y, expect, screenshots, signIn, test } from './fixtures';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
const password = 'Admin-area-pass-9';

async function asAdmin(page: Page, path = '/admin'): Promise<void> {
  await page.goto(path);
  await signIn(page, admin.login, admin.password);
}

async function userPage(browser: Browser, baseURL: string | undefined, login: string, locale = 'en-US'): Promise<Page> {
  const ctx = await browser.newContext({ baseURL, locale });
  const page = await ctx.newPage();
  await page.goto('/');
  await signIn(page, login, password);
  await expect(page.getByRole('button', { name: /User menu of|Меню пользователя/ })).toBeVisible();
  return page;
}

test('an ordinary user sees no administration entry, gets 403 in words and loads no admin code', async ({ browser, baseURL, adminApi }) => {
  const login = `plain-${uniq()}`;
  await adminApi.post('/admin/users', { login, password, displayName: `Plain ${login}` });
  const page = await userPage(browser, baseURL, login);
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await page.getByRole('button', { name: /User menu of/ }).click();
  await expect(page.getByRole('link', { name: 'My profile' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Administration' })).toHaveCount(0);
  for (const path of ['/admin', '/admin/users', '/admin/backups']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: 'No access' })).toBeVisible();
    await expect(page.getByRole('alert')).toContainText(/administrator|core_admin/i);
  }
  expect(scripts.filter((u) => /\/(Admin|Users|Dashboard|Backups)-[\w-]+\.js$/.test(u))).toEqual([]);
  await page.context().close();
});

test('create a user, sign in as them, make them administrator and take it back; the bootstrap flag stays', async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000); // two browsers and three axe runs on a loaded machine
  const login = `made-${uniq()}`;
  await asAdmin(page, '/admin/users');
  await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
  await page.getByRole('button', { name: 'New user' }).click();
  await page.getByLabel('Login', { exact: true }).fill(login);
  await page.getByLabel('Name', { exact: true }).fill(`Made ${login}`);
  await expect(page.getByText(/8 to 256 characters/)).toBeVisible();
  await page.getByLabel('Password').fill('password');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('alert')).toContainText(/password/i);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('status').filter({ hasText: `User ${login} created` })).toBeVisible();
  await checkA11y(page, 'admin users');

  const other = await userPage(browser, baseURL, login);

  await page.getByLabel('Search users (login, name, e-mail)').fill(login);
  await page.getByLabel('Search users (login, name, e-mail)').press('Enter');
  await page.getByRole('link', { name: login }).click();
  await expect(page.getByRole('heading', { level: 1, name: `User Made ${login}` })).toBeVisible();
  await page.getByRole('checkbox', { name: 'Administrator', exact: true }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await checkA11y(page, 'admin user card');

  // The new administrator (signed in again: the role change ended their
  // sessions) tries to take the bootstrap account's role away.
  await other.context().clearCookies();
  await other.goto('/admin/users');
  await signIn(other, login, password);
  await other.getByLabel('Search users (login, name, e-mail)').fill(admin.login);
  await other.getByLabel('Search users (login, name, e-mail)').press('Enter');
  await other.getByRole('link', { name: admin.login, exact: true }).click();
  await expect(other.getByText(/bootstrap administrator account/)).toBeVisible();
  await other.getByRole('checkbox', { name: 'Administrator', exact: true }).uncheck();
  await other.getByRole('button', { name: 'Save' }).click();
  await expect(other.getByRole('alert')).toContainText(/bootstrap administrator .* always keeps the administrator role/);
  await expect(other.getByRole('checkbox', { name: 'Administrator', exact: true })).toBeChecked();
  await other.context().close();

  await page.getByRole('checkbox', { name: 'Administrator', exact: true }).uncheck();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.getByRole('link', { name: /All users/ }).click();
  await page.getByLabel('Administrators only').check();
  await expect(page.getByRole('link', { name: admin.login, exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: login })).toHaveCount(0);
});

test('create a group and add a user with the picker', async ({ page, adminApi }) => {
  const s = uniq();
  await adminApi.post('/admin/users', { login: `member-${s}`, password, displayName: `Member ${s}` });
  await asAdmin(page, '/admin/groups');
  await page.getByRole('button', { name: 'New group' }).click();
  await page.getByLabel('Name').fill(`Team ${s}`);
  await page.getByLabel('Description').fill('A group made in the browser');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Team ${s}` })).toBeVisible();
  await page.getByRole('combobox', { name: 'Add member' }).fill(`member-${s}`);
  await page.getByRole('option', { name: new RegExp(`Member ${s}`) }).click();
  await expect(page.getByRole('link', { name: `Member ${s}` })).toBeVisible();
  await expect(page.getByRole('heading', { level: 2, name: 'Members (1)' })).toBeVisible();
  await checkA11y(page, 'admin group');
  await page.getByRole('link', { name: /All groups/ }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: `Team ${s}` }) });
  await expect(row).toContainText('Portal group');
  await expect(row).toContainText('1');
});

test('schedule a service every 15 minutes and see the next five runs', async ({ page }) => {
  await asAdmin(page, '/admin/services');
  const card = page.getByRole('region', { name: /recycle-bin/ });
  await card.getByRole('button', { name: /Edit schedule of/ }).click();
  const dlg = page.getByRole('dialog');
  await dlg.getByLabel('Repeat').selectOption('minutes');
  await dlg.getByLabel('Every').selectOption('15');
  await expect(dlg.getByTestId('cron')).toHaveText('*/15 * * * *');
  const runs = dlg.getByRole('list', { name: 'Next five runs' }).getByRole('listitem');
  await expect(runs).toHaveCount(5);
  await checkA11y(page, 'schedule editor');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(dlg).toBeHidden();
  await expect(card.getByText('*/15 * * * *')).toBeVisible();
  await expect(card.getByText(/Next run:/)).toBeVisible();
});

test('the log filtered by a correlation id taken from a response header', async ({ page, request }) => {
  const r = await request.post('/api/v1/auth/login', { data: { login: `nobody-${uniq()}`, password: 'wrong-one-1' } });
  const cid = r.headers()['x-request-id'];
  expect(cid).toBeTruthy();
  await asAdmin(page, '/admin/logs');
  await page.getByLabel('Correlation id', { exact: true }).fill(cid!);
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(new RegExp(`correlationId=${cid}`));
  const rows = page.getByRole('row').filter({ hasText: 'sign-in failed' });
  await expect(rows.first()).toBeVisible({ timeout: 15_000 });
  await rows.first().getByRole('button', { name: 'sign-in failed' }).click();
  await expect(page.getByRole('dialog')).toContainText(cid!);
  await page.keyboard.press('Escape');
  // Clearing the log is confirmed and reachable by keyboard; cancel here.
  await page.getByRole('button', { name: 'Clear the log' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('dialog', { name: 'Clear the log' })).toContainText('cannot be brought back');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('the dashboard request figure grows while requests are made', async ({ page, adminApi }) => {
  await asAdmin(page, '/admin');
  const rpm = page.locator('[data-metric="rpm"]');
  await expect(rpm).toBeVisible();
  const before = Number((await rpm.textContent())!.replace(/\D/g, ''));
  // Requests keep coming while the figure is polled: earlier tests' requests
  // leave the last minute meanwhile, so one burst may not show as growth.
  await expect
    .poll(
      async () => {
        for (let i = 0; i < 40; i++) await adminApi.get('/system/version');
        return Number((await rpm.textContent())!.replace(/\D/g, ''));
      },
      { timeout: 45_000, intervals: [1_000] },
    )
    .toBeGreaterThan(before + 20);
  await expect(page.getByRole('img', { name: /Requests per minute: last 10 minutes/ })).toBeVisible();
});

for (const lang of ['en', 'ru'] as const) {
  test(`screenshots and axe-core of the administration screens (${lang})`, async ({ page }) => {
    test.setTimeout(240_000);
    await asAdmin(page, '/admin');
    // The language of this browser only (not saved as the administrator's
    // preference, which other tests would inherit).
    await page.evaluate((l) => localStorage.setItem('core.lang', l), lang);
    for (const [path, name] of [['/admin', 'dashboard'], ['/admin/users', 'users'], ['/admin/groups', 'groups'], ['/admin/services', 'services'], ['/admin/jobs', 'jobs'], ['/admin/logs', 'logs'], ['/admin/audit', 'audit'], ['/admin/backups', 'backups'], ['/admin/directory', 'directory'], ['/admin/mail', 'mail'], ['/admin/modules', 'modules'], ['/admin/licence', 'licence'], ['/admin/receivers', 'receivers'], ['/admin/maintenance', 'maintenance']] as const) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: /Loading|Загрузка/ })).toHaveCount(0);
      await checkA11y(page, `admin ${name} ${lang}`);
      await screenshots(page, `admin-${name}`, lang);
    }
  });
}

// Last in the file: a restore puts the whole portal back to the copy.
test('run a backup, see it succeed and restore it with a typed confirmation', async ({ page, adminApi }) => {
  test.setTimeout(120_000);
  await asAdmin(page, '/admin/backups');
  await page.getByRole('button', { name: 'Run a backup now' }).click();
  const journal = page.getByRole('table', { name: 'Journal' });
  await expect(journal.getByRole('row').nth(1)).toContainText(/backup\s*Succeeded/, { timeout: 60_000 });
  // The test server has CORE_BACKUP_KEY: the copy is signed, so no
  // "accept unverified" choice is offered and the accounts come back intact.
  await expect(page.getByLabel('Restore copies whose signature cannot be checked')).toHaveCount(0);
  const restore = page.getByRole('button', { name: /^Restore / }).first();
  await restore.focus();
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog');
  await expect(dlg).toContainText('Writes pause');
  await expect(dlg).toContainText('restarted');
  const go = dlg.getByRole('button', { name: 'Restore', exact: true });
  await expect(go).toBeDisabled();
  const product = (await adminApi.get<{ product: string }>('/admin/product')).product;
  await dlg.getByLabel(`Type ${product} to confirm`).fill(product);
  await go.click();
  await expect(page.getByRole('status').filter({ hasText: 'Restore queued' })).toBeVisible();
  await expect(journal.getByRole('row').nth(1)).toContainText(/restore\s*Succeeded/, { timeout: 60_000 });
  await Api.signIn(adminApi.request, admin.login, admin.password);
});
