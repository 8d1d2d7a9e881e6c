// HTML fields: the rich-text editor with its toolbar and shortcuts, driven
// by keyboard; the source toggle shows the HTML; the saved value is HTML.
import { checkA11y, expect, test } from './fixtures';
import { makeList, open } from './listkit';

test('an HTML field is edited as rich text by keyboard, with a source toggle', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'rich', { body: { type: 'html_text' } });
  await open(page, `${l.path}?mode=new`);
  const dlg = page.getByRole('dialog', { name: 'New item' });
  await dlg.getByLabel(/^Title/).fill('Rich');
  const area = dlg.getByRole('textbox', { name: 'Body' });
  await area.focus();
  await page.keyboard.type('Hello ');
  await page.keyboard.press('Control+B');
  await page.keyboard.type('strong');
  await page.keyboard.press('Control+B');
  await page.keyboard.press('Enter');
  // Shift+Tab into the toolbar: HTML source, Link, Numbered list, Bulleted list.
  const toolbar = dlg.getByRole('toolbar', { name: 'Formatting of Body' });
  for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+Tab');
  await expect(toolbar.getByRole('button', { name: 'Bulleted list' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(area).toBeFocused();
  await page.keyboard.type('first point');
  await expect(area.locator('b, strong')).toHaveText('strong');
  await expect(area.locator('ul li')).toHaveText('first point');
  await checkA11y(page, 'html editor');
  await toolbar.getByRole('button', { name: 'HTML source' }).focus();
  await page.keyboard.press('Enter');
  await expect(toolbar.getByRole('button', { name: 'HTML source' })).toHaveAttribute('aria-pressed', 'true');
  await expect(dlg.getByRole('textbox', { name: 'Body' })).toHaveValue(/<(b|strong)>strong<\/(b|strong)>.*<li>first point<\/li>/s);
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Item 1' })).toBeVisible();
  const item = await adminApi.get<{ field_values: Record<string, string> }>(`/lists/${l.listId}/items/1`);
  expect(item.field_values[l.fields['body']!]).toMatch(/<(b|strong)>strong<\/(b|strong)>/);
  expect(item.field_values[l.fields['body']!]).toContain('<li>first point</li>');
});
