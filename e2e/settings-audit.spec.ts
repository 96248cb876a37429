/** Settings → Audit log in browser mode, over rows made by real approval cycles (Demo provider, Files server). */
import fs from 'node:fs/promises';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Locator, Page } from '@playwright/test';
import { expect, test, type Workbench } from './fixtures';
import { filesReady, openSettings, runAllowedCall, runApprovalCycle } from './settings-helpers';

/**
 * 3 rows for the allowed-for-chat cycle (its decision, the grant's policy row, its result), 2 per call the grant lets
 * through, 1 for the denial: 56 rows, two pages of 50.
 */
const GRANTED_CALLS = 26;
const TOTAL_ROWS = 3 + GRANTED_CALLS * 2 + 1;

async function seed(workbench: Workbench): Promise<void> {
  await filesReady(workbench);
  const busy = await runApprovalCycle(workbench, { title: 'Busy chat', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' });
  for (let index = 0; index < GRANTED_CALLS; index++) await runAllowedCall(workbench, busy);
  await runApprovalCycle(workbench, {
    title: 'Careful chat',
    decision: 'TOOL_CALL_DECISION_DENY',
    reason: 'not this folder',
  });
}

function rows(dialog: Locator): Locator {
  return dialog.getByRole('table', { name: 'Audit log' }).locator('tbody tr');
}

async function filter(dialog: Locator, label: string, value: string): Promise<void> {
  const field = dialog.getByRole('search', { name: 'Filter the audit log' }).getByLabel(label, { exact: true });
  if ((await field.evaluate((element) => element.tagName)) === 'SELECT') await field.selectOption({ label: value });
  else await field.fill(value);
}

async function open(page: Page, workbench: Workbench): Promise<Locator> {
  return openSettings(page, workbench, 'Audit log');
}

test('filters, paging and a row in detail', async ({ page, workbench }) => {
  test.setTimeout(90_000);
  await seed(workbench);
  const dialog = await open(page, workbench);
  await expect(rows(dialog)).toHaveCount(50);
  await expect(dialog.getByTestId('audit-page-number')).toHaveText('Page 1');
  await dialog.getByRole('button', { name: 'Older →' }).click();
  await expect(rows(dialog)).toHaveCount(TOTAL_ROWS - 50);
  await expect(dialog.getByTestId('audit-page-number')).toHaveText('Page 2');
  await expect(dialog.getByRole('button', { name: 'Older →' })).toBeDisabled();
  await expect(rows(dialog).last()).toHaveAttribute('data-sequence', '1');
  await dialog.getByRole('button', { name: '← Newer' }).click();
  await expect(rows(dialog).first()).toHaveAttribute('data-sequence', String(TOTAL_ROWS));

  await filter(dialog, 'Decision', 'Denied');
  await expect(rows(dialog)).toHaveCount(1);
  await expect(rows(dialog).first()).toContainText('Careful chat');
  await filter(dialog, 'Decision', 'Any');
  await filter(dialog, 'Actor', 'You');
  await expect(rows(dialog)).toHaveCount(3);
  await filter(dialog, 'Chat', 'Busy chat');
  await expect(rows(dialog)).toHaveCount(2);
  await expect(rows(dialog).last()).toContainText('Allowed for chat');
  // The grant itself is a change of the chat's policy, recorded right after the decision.
  await expect(rows(dialog).first()).toContainText('Policy change');
  await expect(rows(dialog).first()).toContainText('Allowed Files.list_directory for this chat');
  await filter(dialog, 'Actor', 'Anyone');
  await filter(dialog, 'Decision', 'Chat grant');
  await expect(rows(dialog)).toHaveCount(GRANTED_CALLS);
  await dialog.getByRole('button', { name: 'Clear filters' }).click();
  await filter(dialog, 'Server', 'Files');
  await filter(dialog, 'Tool', 'list_directory');
  await filter(dialog, 'Rows', 'Results');
  await expect(rows(dialog)).toHaveCount(GRANTED_CALLS + 1);
  await filter(dialog, 'Tool', 'write_file');
  await expect(dialog.getByText('No row matches these filters.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Clear filters' }).click();
  // Time: a window in the future holds nothing; "to" before "from" is refused next to the filters.
  await filter(dialog, 'From', '2099-01-01T00:00');
  await expect(dialog.getByText('No row matches these filters.')).toBeVisible();
  await filter(dialog, 'To', '2098-01-01T00:00');
  await expect(dialog.getByRole('alert')).toHaveText('“From” must not be after “To”.');
  await dialog.getByRole('button', { name: 'Clear filters' }).click();
  await expect(rows(dialog)).toHaveCount(50);

  // A policy row in detail: who changed what, the values before and after.
  await filter(dialog, 'Rows', 'Policy changes');
  await expect(rows(dialog)).toHaveCount(1);
  await rows(dialog).first().click();
  const change = page.getByTestId('audit-detail');
  await expect(change).toContainText('Changed by');
  await expect(change).toContainText('Allowed Files.list_directory for this chat');
  await expect(change.getByTestId('policy-before')).toContainText('"grant": null');
  await expect(change.getByTestId('policy-after')).toContainText('"grantedAt"');
  await change.getByRole('button', { name: 'Close' }).click();
  await dialog.getByRole('button', { name: 'Clear filters' }).click();

  // The denial in detail: who, why, which rule, redacted arguments and the hashes.
  await filter(dialog, 'Decision', 'Denied');
  // Wait for the filtered list before clicking, so the click lands on the denial and not on a row of the list before.
  await expect(rows(dialog)).toHaveCount(1);
  await expect(rows(dialog).first()).toContainText('Careful chat');
  await rows(dialog).first().click();
  const detail = page.getByTestId('audit-detail');
  await expect(detail).toContainText('Denied');
  await expect(detail).toContainText('not this folder');
  await expect(detail).toContainText('Careful chat');
  await expect(detail).toContainText('"path"');
  await expect(detail.getByText('Arguments hash')).toBeVisible();
  await expect(detail.getByText('Row hash', { exact: true })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  // Keyboard: Enter on a focused row opens it too.
  await rows(dialog).first().focus();
  await page.keyboard.press('Enter');
  await expect(detail).toBeVisible();
});

test('verify, export CSV and JSONL to a downloaded file, and verify a tampered database', async ({
  page,
  workbench,
}) => {
  test.setTimeout(90_000);
  await seed(workbench);
  let dialog = await open(page, workbench);
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await expect(dialog.getByTestId('verify-result')).toContainText(
    `The chain is intact: ${TOTAL_ROWS} rows checked, head #${TOTAL_ROWS}`,
  );

  for (const format of ['csv', 'jsonl'] as const) {
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: `Export ${format.toUpperCase()}` }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(new RegExp(`^ai-workbench-audit-[\\d-]+\\.${format}$`));
    const file = path.join(workbench.dataDir, '..', `${path.basename(workbench.dataDir)}-export.${format}`);
    await download.saveAs(file);
    const text = await fs.readFile(file, 'utf8');
    await fs.rm(file);
    const lines = text.trimEnd().split('\n');
    if (format === 'jsonl') {
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({
        aiWorkbenchAuditExport: 1,
        rowCount: TOTAL_ROWS,
        head: { sequence: TOTAL_ROWS },
      });
      expect(lines).toHaveLength(TOTAL_ROWS + 1);
      const denied = lines
        .slice(1)
        .map((line) => JSON.parse(line) as { decision: string | null; reason: string | null })
        .filter((row) => row.decision === 'deny');
      expect(denied).toEqual([expect.objectContaining({ reason: 'not this folder' })]);
    } else {
      expect(lines[0]).toContain('# aiWorkbenchAuditExport=1');
      expect(lines[0]).toContain(`rowCount=${TOTAL_ROWS}`);
      expect(lines[1]?.split(',')[0]).toBe('sequence');
      expect(lines).toHaveLength(TOTAL_ROWS + 2);
      expect(text).toContain('not this folder');
    }
    await expect(dialog.getByRole('status').filter({ hasText: 'Exported' })).toContainText(
      `Exported ${TOTAL_ROWS} rows`,
    );
  }

  // Tamper with row 3 behind the app's back, then verify again.
  await workbench.stop();
  const db = new BetterSqlite3(path.join(workbench.dataDir, 'workbench.db'));
  db.exec('DROP TRIGGER audit_log_no_update');
  db.prepare("UPDATE audit_log SET tool_name = 'delete_everything' WHERE sequence = 3").run();
  db.close();
  await workbench.restart();
  dialog = await open(page, workbench);
  await dialog.getByRole('button', { name: 'Verify' }).click();
  const result = dialog.getByTestId('verify-result');
  await expect(result).toContainText('The log was tampered with at row #3 (content-changed)');
  await expect(result).toContainText('2 rows before it verified');
  await result.getByRole('button', { name: 'Show row #3' }).click();
  const detail = page.getByTestId('audit-detail');
  await expect(detail).toContainText('Verification found this row broken');
  await expect(detail).toContainText('delete_everything');
  await detail.getByRole('button', { name: 'Close' }).click();
  await dialog.getByRole('button', { name: 'Older →' }).click();
  await expect(rows(dialog).filter({ hasText: 'delete_everything' })).toHaveClass(/is-broken/);
});
