// Document libraries (issue 28, item 1): a library with a required custom
// field, drag-and-drop upload with progress and a refusal in words, a new
// version and restoring the first, a move into a folder, a PDF preview, a
// property shown as a column, an isolated folder hidden from a user without
// rights, the recycle bin, keyboard-only upload, axe and screenshots.
import { type Page } from '@playwright/test';
import { admin, type Api, checkA11y, expect, screenshots, signIn, test } from './fixtures';
import { pdf } from './pdfkit';

const uniq = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

type Spec = { name: string; type: string; text?: string; size?: number; b64?: string };

/** Drops files onto a target as a user's drag and drop does (a DataTransfer with File objects). */
async function dropFiles(page: Page, selector: string, files: Spec[]): Promise<void> {
  const dt = await page.evaluateHandle((specs: Spec[]) => {
    const dt = new DataTransfer();
    for (const s of specs) {
      const body = s.b64 ? Uint8Array.from(atob(s.b64), (c) => c.charCodeAt(0)) : s.text !== undefined ? new TextEncoder().encode(s.text) : new Uint8Array(s.size ?? 0);
      dt.items.add(new File([body], s.name, { type: s.type }));
    }
    return dt;
  }, files);
  await page.locator(selector).first().dispatchEvent('dragover', { dataTransfer: dt });
  await page.locator(selector).first().dispatchEvent('drop', { dataTransfer: dt });
}

async function setup(adminApi: Api, s: string) {
  const node = await adminApi.post<{ id: string }>('/nodes', { title: `Docs ${s}`, slug: `docs-${s}` });
  return node;
}

test('a library: required field, drag and drop with progress and a refusal, versions, move, preview, column', async ({ page, adminApi }) => {
  test.setTimeout(180_000);
  const s = uniq();
  await setup(adminApi, s);
  await page.goto(`/docs-${s}`);
  await signIn(page, admin.login, admin.password);
  await page.getByRole('button', { name: 'New library' }).click();
  const dlg = page.getByRole('dialog', { name: 'New document library' });
  await dlg.getByLabel('Title').fill('Contracts');
  await dlg.getByLabel('Address name (slug)').fill('contracts');
  await dlg.getByRole('button', { name: 'Create library' }).click();
  await expect(page).toHaveURL(new RegExp(`/docs-${s}/libraries/contracts$`));
  await expect(page.getByRole('heading', { level: 1, name: 'Contracts' })).toBeVisible();

  // a required custom field through the field editor of lists
  await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Custom fields' }).click();
  await page.getByRole('button', { name: 'Add field' }).click();
  await page.getByLabel('Field title').fill('Owner');
  await page.getByLabel('Required').check();
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(page.getByText('Owner', { exact: true })).toBeVisible();
  await page.getByRole('navigation', { name: 'Library sections' }).getByRole('link', { name: 'Files' }).click();
  await expect(page.getByRole('columnheader', { name: 'Owner' })).toHaveCount(0); // no files yet: no table

  // drag and drop three files, one over the 1 MB limit of the test server
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 20, downloadThroughput: -1, uploadThroughput: 150 * 1024 });
  await dropFiles(page, 'section.drop', [
    { name: 'notes.txt', type: 'text/plain', text: 'first version of the notes' },
    { name: 'offer.pdf', type: 'application/pdf', b64: pdf('zebrafish').toString('base64') },
    { name: 'huge.bin', type: 'application/octet-stream', size: 1024 * 1024 + 150 * 1024 },
  ]);
  await expect(page.getByRole('progressbar', { name: 'Upload of huge.bin' })).toBeVisible();
  await screenshots(page, 'library-upload', 'en');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await expect(page.getByRole('alert').filter({ hasText: 'huge.bin: refused: the file is larger than the portal accepts' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: 'notes.txt: uploaded' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'offer.pdf: uploaded' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'notes.txt' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'huge.bin' })).toHaveCount(0);

  // the same name again: said before the upload, then version 2
  await page.getByRole('button', { name: 'Clear finished uploads' }).click();
  await page.getByLabel('Choose files to upload').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('second version, a bit longer') });
  await expect(page.getByRole('status').filter({ hasText: 'notes.txt: uploaded as a new version' })).toBeVisible();
  await page.getByRole('link', { name: 'notes.txt' }).click();
  const panel = page.getByRole('dialog', { name: 'Properties of notes.txt' });
  await panel.getByRole('button', { name: 'Versions' }).click();
  const versions = page.getByRole('dialog', { name: 'Versions of notes.txt' });
  await expect(versions.getByRole('listitem')).toHaveCount(2);
  await expect(versions.getByText('Version 2')).toBeVisible();
  await expect(versions.getByText('by Administrator').first()).toBeVisible();
  await checkA11y(page, 'version list');
  await screenshots(page, 'library-versions', 'en');
  await versions.getByRole('button', { name: 'Restore version 1' }).click();
  await expect(versions.getByRole('status').filter({ hasText: 'Version 1 restored' })).toBeVisible();
  await expect(versions.getByRole('listitem')).toHaveCount(3);
  const dl = await page.request.get(await versions.getByRole('link', { name: 'Download version 1' }).getAttribute('href') ?? '');
  expect(await dl.text()).toBe('first version of the notes');
  // properties: the required field is checked on save, then shown as a column
  await versions.getByRole('button', { name: 'Properties' }).click();
  const props = page.getByRole('dialog', { name: 'Properties of notes.txt' });
  await props.getByRole('button', { name: 'Save' }).click();
  await expect(props.getByText('Owner is required.')).toBeVisible();
  await props.getByLabel(/^Owner/).fill('Maria');
  await props.getByRole('button', { name: 'Save' }).click();
  await expect(props.getByRole('status').filter({ hasText: 'Properties saved.' })).toBeVisible();
  await props.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(page.getByRole('row', { name: /notes\.txt/ }).getByRole('cell', { name: 'Maria' })).toBeVisible();

  // a folder, and a move into it; a folder into itself is refused in words
  await page.getByRole('button', { name: 'New folder' }).click();
  await page.getByLabel('Folder name').fill('Signed');
  await page.getByRole('button', { name: 'Create folder' }).click();
  await expect(page.getByRole('link', { name: 'Signed' })).toBeVisible();
  await page.getByLabel('Actions for offer.pdf').click();
  await page.getByRole('button', { name: 'Move' }).click();
  const mv = page.getByRole('dialog', { name: 'Move offer.pdf' });
  await mv.getByRole('button', { name: 'Open folder Signed' }).click();
  await mv.getByRole('button', { name: 'Move into “Signed”' }).click();
  await expect(page.getByRole('status').filter({ hasText: '“offer.pdf” moved to “Signed”.' })).toBeVisible();
  await page.getByLabel('Actions for Signed').click();
  await page.getByRole('button', { name: 'Move' }).click();
  const mv2 = page.getByRole('dialog', { name: 'Move Signed' });
  await mv2.getByRole('button', { name: 'Open folder Signed' }).click();
  await mv2.getByRole('button', { name: 'Move into “Signed”' }).click();
  await expect(mv2.getByRole('alert')).toHaveText('A folder cannot be moved into itself or into a folder below it.');
  await mv2.getByRole('button', { name: 'Cancel' }).click();

  // into the folder (breadcrumb), preview the PDF from the API's download
  await page.getByRole('link', { name: 'Signed' }).click();
  await expect(page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'Signed' })).toHaveAttribute('aria-current', 'page');
  await page.getByLabel('Actions for offer.pdf').click();
  const [pdfAnswer] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/download?inline=true')),
    page.getByRole('button', { name: 'Preview' }).click(),
  ]);
  const pdfHeaders = await pdfAnswer.allHeaders();
  expect(pdfHeaders['content-type']).toBe('application/pdf');
  expect(pdfHeaders['content-security-policy']).toBe('sandbox');
  expect(pdfHeaders['content-disposition']).toMatch(/^inline;/);
  await expect(page.getByRole('dialog', { name: 'Preview of offer.pdf' }).locator('iframe')).toBeVisible();
  await page.getByRole('dialog', { name: 'Preview of offer.pdf' }).getByRole('button', { name: 'Close' }).click();

  // delete to the bin, and restore from the notice
  await page.getByRole('navigation', { name: 'Folder path' }).getByRole('link', { name: 'Library root' }).click();
  await page.getByLabel('Actions for notes.txt').click();
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('rowheader', { name: 'notes.txt' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByRole('rowheader', { name: 'notes.txt' })).toBeVisible();

  await checkA11y(page, 'library');
  await screenshots(page, 'library', 'en');
  await page.evaluate(() => localStorage.setItem('core.lang', 'ru'));
  await page.reload();
  await expect(page.getByRole('button', { name: 'Загрузить файлы' })).toBeVisible();
  await checkA11y(page, 'library (ru)');
  await screenshots(page, 'library', 'ru');
  await page.getByRole('link', { name: 'notes.txt' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Версии' }).click();
  await expect(page.getByRole('dialog').getByText('Версия 3')).toBeVisible();
  await screenshots(page, 'library-versions', 'ru');
  await page.evaluate(() => localStorage.setItem('core.lang', 'en'));
});

test('an isolated folder is hidden from a user without rights; the node recycle bin restores a file', async ({ page, adminApi, browser, baseURL }) => {
  test.setTimeout(120_000);
  const s = uniq();
  const node = await setup(adminApi, s);
  const lib = await adminApi.post<{ id: string }>('/libraries', { nodeId: node.id, title: 'Team files', slug: 'team' });
  const login = `reader-${s}`;
  const user = await adminApi.post<{ id: string }>('/admin/users', { login, password: 'Reader-pass-1', displayName: `Reader ${s}` });
  await adminApi.post('/permissions', { principalType: 'user', principalId: user.id, resourceType: 'node', resourceId: node.id, permissionLevel: 'view' });
  await adminApi.post(`/libraries/${lib.id}/folders`, { name: 'Open' });
  await adminApi.post(`/libraries/${lib.id}/folders`, { name: 'Board only' });

  // the administrator isolates the folder in the permissions dialog
  await page.goto(`/docs-${s}/libraries/team`);
  await signIn(page, admin.login, admin.password);
  await page.getByLabel('Actions for Board only').click();
  await page.getByRole('button', { name: 'Permissions', exact: true }).click();
  const perms = page.getByRole('dialog', { name: /Board only/ });
  // the dialog has settled (the access check above the button has loaded), so
  // the button does not move between the press and the release of a click
  await expect(perms.getByText(/^Your access:/)).toBeVisible();
  await perms.getByRole('button', { name: 'Stop inheriting' }).click();
  await perms.getByRole('button', { name: 'Confirm' }).click();
  await expect(perms.getByRole('button', { name: 'Inherit again' })).toBeVisible();
  await perms.getByRole('button', { name: `Remove permission of Reader ${s}` }).click();
  await expect(perms.getByRole('button', { name: `Remove permission of Reader ${s}` })).toHaveCount(0);
  await page.keyboard.press('Escape');

  const ctx = await browser.newContext({ baseURL });
  const reader = await ctx.newPage();
  await reader.goto(`/docs-${s}/libraries/team`);
  await signIn(reader, login, 'Reader-pass-1');
  await expect(reader.getByRole('link', { name: 'Open' })).toBeVisible({ timeout: 20_000 });
  await expect(reader.getByRole('link', { name: 'Board only' })).toHaveCount(0);
  await expect(reader.getByRole('button', { name: 'Upload files' })).toHaveCount(0);
  await ctx.close();

  // a folder deleted to the bin: the node's recycle bin says what, who and when, and restores it
  await page.getByLabel('Actions for Open').click();
  await page.getByRole('row', { name: /Open/ }).getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete' }).getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('link', { name: 'Open' })).toHaveCount(0);
  await page.goto(`/docs-${s}`);
  await page.getByRole('button', { name: 'Recycle bin' }).click();
  const row = page.getByRole('row', { name: /Open/ });
  await expect(row.getByRole('cell', { name: 'File or folder' })).toBeVisible();
  await expect(row.getByRole('cell', { name: 'Administrator' })).toBeVisible();
  await checkA11y(page, 'recycle bin');
  await page.getByRole('button', { name: 'Restore Open' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Open restored.' })).toBeAttached();
  await page.goto(`/docs-${s}/libraries/team`);
  await expect(page.getByRole('link', { name: 'Open' })).toBeVisible();
});

test('upload by keyboard only', async ({ page, adminApi }) => {
  const s = uniq();
  const node = await setup(adminApi, s);
  await adminApi.post('/libraries', { nodeId: node.id, title: 'Keys', slug: 'keys' });
  await page.goto(`/docs-${s}/libraries/keys`);
  await signIn(page, admin.login, admin.password);
  const button = page.getByRole('button', { name: 'Upload files' });
  await expect(button).toBeVisible();
  await button.focus();
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Enter');
  await (await chooser).setFiles({ name: 'typed.txt', mimeType: 'text/plain', buffer: Buffer.from('by keyboard') });
  await expect(page.getByRole('status').filter({ hasText: 'typed.txt: uploaded' })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'typed.txt' })).toBeVisible();
});
