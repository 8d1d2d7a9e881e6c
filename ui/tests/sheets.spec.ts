// Spreadsheets in the console: export of the grid's current view (filter
// and sort) as CSV, a new list from a CSV on a node page, and an import into
// an existing list with a key column and a bad row in the error report; all
// by keyboard, axe on the dialogs.
import { readFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { checkA11y, expect, test } from './fixtures';
import { gridRows, makeList, open } from './listkit';

/** Parses RFC 4180 CSV (the export's and the report's format, BOM dropped). */
function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const s = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && s[i + 1] === '\n') i++;
      row.push(cell); rows.push(row); row = []; cell = '';
    } else cell += ch;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

/** Focuses a control and presses Enter: the keyboard path of a click. */
async function press(page: Page, name: string | RegExp, role: 'button' | 'link' = 'button', root: Page | Locator = page) {
  const el = root.getByRole(role, { name });
  await el.focus();
  await page.keyboard.press('Enter');
}

async function download(page: Page, act: () => Promise<void>): Promise<string> {
  const [d] = await Promise.all([page.waitForEvent('download'), act()]);
  return readFileSync((await d.path())!, 'utf8');
}

test('export the filtered, sorted view as CSV', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'exp', { amount: { type: 'number' }, stage: { type: 'choice', settings: { choices: ['Plan', 'Do'] } } });
  const creates = Array.from({ length: 8 }, (_, i) => ({ clientRowId: `r${i}`, fieldValues: { title: `=Row ${i + 1}`, amount: i + 1, stage: i % 2 ? 'Do' : 'Plan' } }));
  await adminApi.post(`/lists/${l.listId}/items/quick-edit`, { creates });
  const filter = JSON.stringify({ logic: 'and', conditions: [{ column: 'stage', operator: 'eq', value: 'Do' }] });
  await open(page, `${l.path}?filter=${encodeURIComponent(filter)}&sort=amount:desc`);
  await expect(page.getByText('4 items')).toBeVisible();
  await press(page, 'Export');
  await checkA11y(page, 'export menu');
  const text = await download(page, () => press(page, 'CSV file (.csv)', 'link'));
  const rows = parseCSV(text).filter((r) => r.length > 1);
  expect(rows[0]).toEqual(expect.arrayContaining(['Title', 'Amount', 'Stage']));
  const ti = rows[0]!.indexOf('Title');
  const ai = rows[0]!.indexOf('Amount');
  expect(rows.slice(1).map((r) => r[ai])).toEqual(['8', '6', '4', '2']);
  expect(rows[1]![ti]).toBe("'=Row 8"); // neutralised against formula injection
});

test('a new list from a CSV on a node page', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'nodeimp');
  const nodePath = l.path.replace(/\/lists\/[^/]+$/, '');
  await open(page, nodePath);
  await press(page, 'New list from a file');
  const csv = 'Name;Amount;Due;Done\nAlpha;1,5;2026-01-02;yes\nBeta;2;2026-02-03;no\nGamma;3;2026-03-04;yes\n';
  await page.getByLabel('File (CSV or Excel .xlsx)').setInputFiles({ name: 'Budget.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await press(page, 'Upload and preview');
  await expect(page.getByText(/Budget\.csv: 3 rows/)).toBeVisible();
  await expect(page.getByLabel('Field type of column Amount')).toHaveValue('number');
  await expect(page.getByLabel('Field type of column Due')).toHaveValue('date');
  await expect(page.getByLabel('Field type of column Done')).toHaveValue('boolean');
  await expect(page.getByLabel('Column Name is the title')).toBeChecked();
  await page.getByLabel('Field type of column Done').focus();
  await page.getByLabel('Field type of column Done').selectOption('text');
  await page.getByLabel('Address name (slug)').fill('budget');
  await checkA11y(page, 'import preview (new list)');
  await press(page, 'Create list and import');
  await expect(page.getByText('Import finished.')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/3 created, 0 updated, 0 failed/)).toBeVisible();
  await press(page, 'Open the new list');
  await expect(page.getByRole('heading', { level: 1, name: 'Budget' })).toBeVisible();
  await expect(gridRows(page)).toHaveCount(3);
  await expect(gridRows(page).filter({ hasText: 'Alpha' })).toContainText('1.5');
});

test('import into a list: key column, a bad row in the report', async ({ page, adminApi }) => {
  const l = await makeList(adminApi, 'listimp', { amount: { type: 'number' }, stage: { type: 'choice', settings: { choices: ['Plan', 'Do'] } } });
  await adminApi.post(`/lists/${l.listId}/items/quick-edit`, { creates: [{ clientRowId: 'a', fieldValues: { title: 'Alpha', amount: 1, stage: 'Plan' } }] });
  await open(page, l.path);
  await expect(gridRows(page)).toHaveCount(1);
  await press(page, 'Import');
  const csv = 'Title,Amount,Stage\nAlpha,5,Do\nBeta,2,Plan\nGamma,lots,Plan\n';
  await page.getByLabel('File (CSV or Excel .xlsx)').setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await press(page, 'Upload and preview');
  await expect(page.getByLabel('Field for column Amount')).toHaveValue(l.fields['amount']!);
  await expect(page.getByLabel('Field for column Stage')).toHaveValue(l.fields['stage']!);
  await page.getByLabel('Update items whose field matches').selectOption({ label: 'Title' });
  await checkA11y(page, 'import preview (into a list)');
  await press(page, /^Import$/, 'button', page.getByRole('dialog'));
  await expect(page.getByText('Import finished.')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByText(/1 created, 1 updated, 1 failed/)).toBeVisible();
  const errors = page.getByRole('table', { name: 'Rows not imported' });
  await expect(errors.getByRole('row').nth(1)).toContainText('4');
  await expect(errors.getByRole('row').nth(1)).toContainText('Amount');
  await checkA11y(page, 'import report');
  const report = parseCSV(await download(page, () => press(page, 'Download the error report (CSV)', 'link')));
  expect(report[0]).toEqual(['row', 'column', 'message']);
  expect(report.filter((r) => r.length > 1).slice(1).map((r) => [r[0], r[1]])).toEqual([['4', 'Amount']]);
  await page.getByRole('dialog').getByText('Close', { exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(gridRows(page)).toHaveCount(2);
  await expect(gridRows(page).filter({ hasText: 'Alpha' })).toContainText('5');
});
