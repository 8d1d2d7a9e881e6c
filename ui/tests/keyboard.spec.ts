// Keyboard only: the views editor, grid edit mode, attachments, the form-script
// editor and field ordering, driven with Tab, Shift+Tab, Enter, Space, arrows
// and Escape. Every control is reached by tabbing (which proves the focus
// order reaches it) and shows a visible focus mark when reached.
import type { Locator, Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { makeList, open } from './listkit';

/**
 * Presses Tab until target has the focus, Shift+Tab when it comes before the
 * focused element (or when back), so the walk never wraps around the page
 * (whose navigation grows with every section the suite makes); fails after
 * max presses.
 */
async function tabTo(page: Page, target: Locator, back = false, max = 120): Promise<void> {
  await expect(target).toBeVisible();
  back ||= await target.evaluate((el) => {
    const active = document.activeElement;
    return active != null && active !== document.body && (el.compareDocumentPosition(active) & Node.DOCUMENT_POSITION_PRECEDING) === 0 && el !== active;
  });
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) {
      const mark = await target.evaluate((el) => {
        const s = getComputedStyle(el);
        return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? 'outline' : s.boxShadow !== 'none' ? 'shadow' : '';
      });
      expect(mark, 'a visible focus mark').not.toBe('');
      return;
    }
    // In a code editor Tab indents; Escape first lets the next Tab leave it.
    if (await page.evaluate(() => document.activeElement?.closest('.code') != null)) await page.keyboard.press('Escape');
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`${String(target)} was not reached with ${back ? 'Shift+Tab' : 'Tab'}`);
}

/**
 * Starts the keyboard walk in the screen itself, as a keyboard user does:
 * the first Tab of the page reaches the "Skip to content" link, Enter moves
 * the focus into the main region, so the next Tab goes to the screen's first
 * control rather than through the navigation.
 */
async function fromContent(page: Page): Promise<void> {
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await tabTo(page, skip);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  await expect(page).not.toHaveURL(/#main/);
}

/** Moves a focused closed select with the arrow keys until label is chosen. */
async function arrowTo(page: Page, select: Locator, label: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const chosen = await select.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent?.trim() ?? '');
    if (chosen === label) return;
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`option ${label} not reached with ArrowDown`);
}

async function retype(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  if (text) await page.keyboard.type(text);
}

const focused = (page: Page) => page.locator(':focus');

// Each test walks a screen key by key: a few hundred round trips to the
// browser, slow on a loaded two-core machine.
test.describe.configure({ timeout: 150_000 });

test('keyboard: the views editor makes a view with columns, a sort and a filter', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'kbviews', { amount: { type: 'number' }, note: { type: 'text' } });
  await open(page, `${l.path}?tab=views`);
  await fromContent(page);
  await tabTo(page, page.getByRole('button', { name: 'Add view' }));
  await page.keyboard.press('Enter');
  const form = page.getByRole('form', { name: 'Add view' });
  await expect(form.getByLabel('View title')).toBeFocused();
  await page.keyboard.type('Keyboard view');
  await tabTo(page, form.getByRole('checkbox', { name: 'Amount' }));
  await page.keyboard.press('Space');
  await tabTo(page, form.getByRole('checkbox', { name: 'Note' }));
  await page.keyboard.press('Space');
  await tabTo(page, form.getByRole('button', { name: 'Add sort column' }));
  await page.keyboard.press('Enter');
  const sortCol = form.getByLabel('Sort column 1', { exact: true });
  await tabTo(page, sortCol);
  await arrowTo(page, sortCol, 'Amount');
  await tabTo(page, form.getByLabel('Direction of sort column 1'));
  await arrowTo(page, form.getByLabel('Direction of sort column 1'), 'Descending');
  await tabTo(page, form.getByRole('button', { name: 'Add condition' }));
  await page.keyboard.press('Enter');
  await tabTo(page, form.getByLabel('Column of condition 1'), true);
  await arrowTo(page, form.getByLabel('Column of condition 1'), 'Amount');
  await tabTo(page, form.getByLabel('Operator of condition 1'));
  await arrowTo(page, form.getByLabel('Operator of condition 1'), 'greater than or equal');
  await tabTo(page, form.getByLabel('Value of condition 1'));
  await page.keyboard.type('5');
  await tabTo(page, form.getByRole('button', { name: 'Save' }));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('listitem').filter({ hasText: 'Keyboard view' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add view' })).toBeFocused();

  const views = await adminApi.get<{ title: string; config: { columns: string[]; sort: { column: string; direction: string }[]; filter: { conditions: { column: string; operator: string; value: unknown }[] } } }[]>(`/lists/${l.listId}/views`);
  const v = views.find((x) => x.title === 'Keyboard view')!;
  expect(v.config.columns).toEqual(expect.arrayContaining([l.fields['amount'], l.fields['note']]));
  expect(v.config.sort).toEqual([{ column: l.fields['amount'], direction: 'desc' }]);
  expect(v.config.filter.conditions).toEqual([{ column: l.fields['amount'], operator: 'gte', value: 5 }]);

  // Escape on an opened edit form is not a dialog; the edit button toggles it closed.
  await tabTo(page, page.getByRole('button', { name: 'Edit view Keyboard view' }), true);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('form', { name: 'Edit view Keyboard view' }).getByLabel('View title')).toBeFocused();
});

test('keyboard: grid edit mode edits cells, adds a row, saves; the invalid cell shows its error', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'kbedit', { amount: { type: 'number', required: true }, note: { type: 'text' } });
  for (const i of [1, 2, 3]) await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: `Item ${i}`, amount: i } });
  await open(page, l.path);
  await fromContent(page);
  await tabTo(page, page.getByRole('button', { name: 'Edit in grid' }));
  await page.keyboard.press('Enter');
  await tabTo(page, page.getByRole('textbox', { name: 'Note, item 1' }));
  await page.keyboard.type('typed note');
  await tabTo(page, page.getByRole('spinbutton', { name: 'Amount, item 3' }));
  await retype(page, '');
  await tabTo(page, page.getByRole('button', { name: 'Add row' }), true);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('textbox', { name: 'Title, new row' })).toBeFocused();
  await page.keyboard.type('Typed row');
  await tabTo(page, page.getByRole('spinbutton', { name: 'Amount, new row' }));
  await page.keyboard.type('9');
  await tabTo(page, page.getByRole('button', { name: 'Save changes' }), true);
  await page.keyboard.press('Enter');
  await expect(page.getByText('Saved rows: 2. Rows with errors: 1.')).toBeVisible();
  await expect(page.getByRole('spinbutton', { name: 'Amount, item 3' })).toHaveAttribute('aria-invalid', 'true');
  const items = await adminApi.get<{ field_values: Record<string, unknown> }[]>(`/lists/${l.listId}/items`);
  expect(items.map((i) => i.field_values[l.fields['note']!])).toContain('typed note');
  expect(items.map((i) => i.field_values[l.fields['title']!])).toContain('Typed row');
});

test('keyboard: attachments upload through the file input, download and delete; Escape returns focus', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'kbfiles');
  await adminApi.post(`/lists/${l.listId}/items`, { fieldValues: { title: 'Has files' } });
  await open(page, l.path);
  await fromContent(page);
  const opener = page.getByRole('link', { name: 'Has files' });
  await tabTo(page, opener);
  await page.keyboard.press('Enter');
  const dlg = page.getByRole('dialog', { name: 'Item 1' });
  await expect(dlg).toBeVisible();
  const input = dlg.getByLabel('Attach a file');
  await tabTo(page, input);
  const chooser = page.waitForEvent('filechooser');
  await page.keyboard.press('Space');
  await (await chooser).setFiles({ name: 'keys.txt', mimeType: 'text/plain', buffer: Buffer.from('typed by keys') });
  const link = dlg.getByRole('link', { name: 'keys.txt' });
  await tabTo(page, link, true);
  const download = page.waitForEvent('download');
  await page.keyboard.press('Enter');
  expect(readFileSync((await (await download).path())!, 'utf8')).toBe('typed by keys');
  await tabTo(page, dlg.getByRole('button', { name: 'Delete attachment keys.txt' }));
  page.once('dialog', (d) => void d.accept());
  await page.keyboard.press('Enter');
  await expect(dlg.getByText('No attachments.')).toBeVisible();
  await expect(focused(page)).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(opener).toBeFocused();
});

test('keyboard: an administrator sets a form script in the code editor', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'kbscript', { code: { type: 'text' } });
  await open(page, `${l.path}?tab=settings`);
  await fromContent(page);
  await tabTo(page, page.getByRole('textbox', { name: 'Form script' }).first());
  await page.keyboard.type("form.set('code', 'K-1');");
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab'); // inside the editor Tab indents
  await page.keyboard.type("form.message('typed');");
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab'); // after Escape, Tab leaves the editor
  await expect(page.getByRole('textbox', { name: 'Form script' }).first()).not.toBeFocused();
  await tabTo(page, page.getByRole('button', { name: 'Save', exact: true }));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Saved.')).toBeVisible();
  const list = await adminApi.get<{ form_config?: { new?: { script?: string } }; formConfig?: { new?: { script?: string } } }>(`/lists/${l.listId}`);
  const cfg = list.form_config ?? list.formConfig;
  expect(cfg?.new?.script).toBe("form.set('code', 'K-1');\n  form.message('typed');");
});

test('keyboard: fields are reordered with the move buttons; focus stays on the moved field', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'kbfields', { alpha: { type: 'text' }, beta: { type: 'text' }, gamma: { type: 'text' } });
  await open(page, `${l.path}?tab=fields`);
  await fromContent(page);
  const down = page.getByRole('button', { name: 'Move Alpha down' });
  await tabTo(page, down);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'Alpha is now at position' })).toHaveCount(1);
  await expect(down).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: /Alpha is now at position 3/ })).toHaveCount(1);
  const fields = await adminApi.get<{ internal_name: string; sortOrder?: number; sort_order?: number }[]>(`/lists/${l.listId}/fields`);
  const order = fields.filter((f) => ['alpha', 'beta', 'gamma'].includes(f.internal_name))
    .sort((a, b) => (a.sortOrder ?? a.sort_order ?? 0) - (b.sortOrder ?? b.sort_order ?? 0)).map((f) => f.internal_name);
  expect(order).toEqual(['beta', 'gamma', 'alpha']);
});
