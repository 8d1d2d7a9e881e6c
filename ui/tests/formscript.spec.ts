// Form scripts: the administrator's script runs in the sandboxed runner
// frame, locks a field, shows a message and vetoes a save with a reason.
import { expect, test } from './fixtures';
import { makeList, open } from './listkit';

const script = `
form.lock('code');
form.set('code', 'AUTO-1');
form.message('Code is assigned automatically.');
form.onBeforeSave(function (values) {
  var a = form.get('amount');
  if (a > 100) return 'Amounts over 100 need approval';
});
`;

test('a form script locks a field and vetoes a save; the editor has line numbers', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'script', { code: { type: 'text' }, amount: { type: 'number' } });
  await open(page, `${l.path}?tab=settings`);
  const editor = page.getByRole('textbox', { name: 'Form script' }).first();
  await editor.fill(script);
  await expect(page.locator('.gutter').first()).toContainText('9');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();

  await page.goto(`${l.path}?mode=new`);
  const dlg = page.getByRole('dialog', { name: 'New item' });
  await expect(dlg.getByText('Code is assigned automatically.')).toBeVisible();
  await expect(dlg.getByLabel('Code')).toBeDisabled();
  await expect(dlg.getByLabel('Code')).toHaveValue('AUTO-1');
  await dlg.getByLabel(/^Title/).fill('Big one');
  await dlg.getByLabel('Amount').fill('500');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(dlg.getByRole('alert')).toHaveText('The form did not allow saving: Amounts over 100 need approval');
  await dlg.getByLabel('Amount').fill('50');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Item 1' })).toBeVisible();
  const item = await adminApi.get<{ field_values: Record<string, unknown> }>(`/lists/${l.listId}/items/1`);
  expect(item.field_values[l.fields['code']!]).toBe('AUTO-1');
});
