// Lists: create a list and one field of every type through the console, order
// fields by keyboard, make items through the form, views in the selector.
import { checkA11y, expect, screenshots, test } from './fixtures';
import { gridRows, makeList, open } from './listkit';

test('a list with a field of every type, made and filled through the console', async ({ page, adminApi }) => {
  test.setTimeout(120_000); // eleven fields made through the form on a shared machine
  const target = await makeList(adminApi, 'targets');
  await adminApi.post(`/lists/${target.listId}/items`, { fieldValues: { title: 'Target one' } });
  await open(page, `/lists/new?nodeId=${target.nodeId}`);
  await page.getByLabel('Title').fill('Every type');
  await expect(page.getByLabel('Address name (slug)')).toHaveValue('every-type');
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(page.getByRole('heading', { name: 'Every type', level: 1 })).toBeVisible();

  const types: [string, string][] = [
    ['Text', 'Text'], ['Notes', 'Multi-line text'], ['Body', 'Rich text (HTML)'], ['Stage', 'Choice'], ['Amount', 'Number'],
    ['Due', 'Date'], ['Starts', 'Date and time'], ['Done', 'Yes / no'], ['Target', 'Lookup'], ['Owner', 'Person or group'], ['Site', 'Link'],
  ];
  for (const [title, type] of types) {
    await page.getByRole('button', { name: 'Add field' }).click();
    const form = page.getByRole('form', { name: 'Add field' });
    await form.getByLabel('Field title').fill(title);
    await form.getByLabel('Type').selectOption({ label: type });
    if (type === 'Choice') await form.getByLabel('Choices').fill('Plan\nDo\nCheck');
    if (type === 'Lookup') await form.getByLabel('Target').selectOption({ label: 'List targets' });
    if (title === 'Amount') await form.getByLabel('Required').check();
    await form.getByRole('button', { name: 'Add' }).click();
    await expect(page.getByRole('listitem').filter({ hasText: title }).first()).toBeVisible();
  }
  // Order by keyboard: Site moves up one place with the button and Enter.
  const up = page.getByRole('button', { name: 'Move Site up' });
  await up.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Site is now at position' })).toHaveCount(1);
  const names = await page.locator('ol.fields li .name').allTextContents();
  expect(names.indexOf('Site')).toBeLessThan(names.indexOf('Owner'));

  await page.getByRole('link', { name: 'Items' }).click();
  await page.getByRole('link', { name: 'New item' }).click();
  const dlg = page.getByRole('dialog', { name: 'New item' });
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(dlg.getByText('Amount is required.')).toBeVisible();
  await dlg.getByLabel(/^Title/).fill('First');
  await dlg.getByLabel('Text', { exact: true }).fill('plain');
  await dlg.getByLabel('Notes').fill('line 1\nline 2');
  await dlg.getByRole('button', { name: 'HTML source' }).click();
  await dlg.getByRole('textbox', { name: 'Body' }).fill('<p><b>bold</b><script>x()</script></p>');
  await dlg.getByLabel('Stage').selectOption('Do');
  await dlg.getByLabel(/^Amount/).fill('42');
  await dlg.getByLabel('Due').fill('2026-05-01');
  await dlg.getByLabel('Starts').fill('2026-05-01T09:30');
  await dlg.getByLabel('Done').check();
  await dlg.getByRole('combobox', { name: 'Target' }).fill('Target');
  await dlg.getByRole('option', { name: 'Target one' }).click();
  // The person picker by keyboard: type, the first option is active, Enter picks it.
  await dlg.getByRole('combobox', { name: 'Owner' }).fill('adm');
  await expect(dlg.getByRole('option', { name: /Administrator/ })).toBeVisible();
  await dlg.getByRole('combobox', { name: 'Owner' }).press('Enter');
  await expect(dlg.getByRole('button', { name: 'Remove Administrator' })).toBeVisible();
  await dlg.getByLabel('Site').fill('https://example.org/');
  await expect(dlg.getByRole('listbox')).toHaveCount(0);
  await checkA11y(page, 'item form');
  await screenshots(page, 'itemform', 'en');
  await dlg.getByRole('button', { name: 'Save' }).click();
  const view = page.getByRole('dialog', { name: /^Item \d+/ });
  await expect(view.getByText('bold')).toBeVisible();
  await expect(view.locator('script')).toHaveCount(0);
  await expect(view.getByRole('link', { name: 'Target one' })).toBeVisible();
  await expect(view.getByRole('link', { name: 'https://example.org/' })).toHaveAttribute('href', 'https://example.org/');
  await view.getByRole('button', { name: 'Close' }).click();
  await expect(gridRows(page)).toHaveCount(1);
  await expect(gridRows(page).first()).toContainText('Do');
  await expect(gridRows(page).first()).toContainText('42');
});

test('views: made in the views tab, chosen in the selector, hidden ones left out', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'views', { stage: { type: 'choice', settings: { choices: ['A', 'B'] } } });
  for (const [title, stage] of [['one', 'A'], ['two', 'B'], ['three', 'A']]) {
    await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title, stage } });
  }
  await open(page, `${l.path}?tab=views`);
  await page.getByRole('button', { name: 'Add view' }).click();
  const form = page.getByRole('form', { name: 'Add view' });
  await form.getByLabel('View title').fill('By stage');
  await form.getByLabel('Group by').selectOption({ label: 'Stage' });
  await form.getByLabel('Row selection').selectOption('single');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('listitem').filter({ hasText: 'By stage' })).toBeVisible();
  await page.getByRole('link', { name: 'Items' }).click();
  await page.getByRole('combobox', { name: 'View', exact: true }).selectOption({ label: 'By stage' });
  await expect(page.getByRole('row').filter({ hasText: /Stage: A\s*\(2\)/ })).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: /Stage: B\s*\(1\)/ })).toBeVisible();
  await expect(page.getByRole('radio')).toHaveCount(3);
  await page.reload();
  await expect(page.getByRole('row').filter({ hasText: /Stage: A/ })).toBeVisible();
});
