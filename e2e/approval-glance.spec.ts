/**
 * The approval card at a glance (docs/user/approvals.md, "In the window"), at the two window sizes people use most,
 * light and dark: the arguments are in view without a click (a long value folded with its length), and the
 * "More…" menu opens where every item can be clicked, not under the approval bar and the message box; the audit
 * log's Why column is in view at 1280 px; the tab bar has no scrollbar of its own.
 */
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { ROOT, expect, test } from './fixtures';
import { checkAccessibility } from './axe';
import { chatUi, filesCall, filesReady, say, scriptedChat } from './chat-ui';
import { filesReady as settingsFilesReady, runApprovalCycle } from './settings-helpers';

test.describe.configure({ timeout: 120_000 });

const SHOTS = path.join(ROOT, 'test-results', 'screens');
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

/** Whether a click at the middle of the element reaches it: in the window, not clipped by the pane, not under a bar. */
async function reachable(item: Locator): Promise<boolean> {
  return item.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const hit = element.ownerDocument.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
    return hit !== null && element.contains(hit);
  });
}

for (const size of SIZES) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${size.width}×${size.height} ${scheme}: the arguments in view, long values folded; More… opens where it can be clicked`, async ({
      page,
      workbench,
    }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await filesReady(workbench);
      const { fake } = await scriptedChat(workbench, 'Glance chat');
      await page.goto(workbench.url);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Glance chat');
      const view = chatUi(page);
      const body = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of the report.`).join('\n');
      fake.script(
        { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'report.txt', content: body }, 'call_long')] },
        { kind: 'reply', text: ['Written.'] },
      );
      await say(page, 'write the report');
      // The first-approval explanation dismissed, the card is the end of the chat: "More…" sits right above the bar.
      await page.getByRole('button', { name: 'Got it' }).click();
      const card = view.card('write_file');
      const args = card.getByLabel('Arguments');
      // In view by default: the path whole, the long content folded to its start with its length.
      await expect(args).toBeVisible();
      await expect(args).toContainText('"path": "report.txt"');
      await expect(args).toContainText('Line 1 of the report.');
      await expect(args).not.toContainText('Line 40 of the report.');
      await expect(args).toContainText(`… [${body.length.toLocaleString('en-US')} characters]`);
      const unfold = card.getByRole('button', {
        name: `Show in full: content (${body.length.toLocaleString('en-US')} characters)`,
      });
      await page.mouse.move(2, 2);
      await shot(page, `glance-${size.width}-${scheme}-card-arguments`);

      await card.getByRole('button', { name: 'More…' }).click();
      const menu = page.getByRole('menu');
      await expect(menu.getByRole('menuitem', { name: 'Always allow this tool' })).toBeFocused();
      for (const name of [
        'Always allow this tool',
        'Always allow calls like this',
        'Auto-approve all tools of this server',
      ]) {
        await expect
          .poll(() => reachable(menu.getByRole('menuitem', { name })), {
            message: `${name} can be clicked where it is`,
          })
          .toBe(true);
      }
      await page.mouse.move(2, 2);
      await shot(page, `glance-${size.width}-${scheme}-more-menu`);
      await page.keyboard.press('Escape');
      await expect(menu).toBeHidden();

      await unfold.click();
      await expect(args).toContainText('Line 40 of the report.');
      await expect(card.getByRole('button', { name: 'Fold long values' })).toBeVisible();
      await card.getByRole('button', { name: 'Deny', exact: true }).click();
      await expect(view.pane.getByText('Written.')).toBeVisible();
    });
  }
}

/** How far an element's content overflows it sideways and downwards (0, 0 when it fits). */
async function overflow(element: Locator): Promise<{ x: number; y: number }> {
  return element.evaluate((node) => ({
    x: node.scrollWidth - node.clientWidth,
    y: node.scrollHeight - node.clientHeight,
  }));
}

for (const size of SIZES) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${size.width}×${size.height} ${scheme}: the audit log's Why column in view without scrolling; the tab bar has no scrollbar`, async ({
      page,
      workbench,
    }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await settingsFilesReady(workbench);
      await runApprovalCycle(workbench, {
        title: 'A chat with a rather long title for the audit log',
        decision: 'TOOL_CALL_DECISION_DENY',
        reason: 'not in this folder, please keep to the notes folder and ask me first',
      });
      await runApprovalCycle(workbench, { title: 'Second chat', decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' });
      await page.goto(workbench.url);
      // Two chats open as tabs: the bar fits them without a scrollbar of its own.
      for (const title of ['A chat with a rather long title for the audit log', 'Second chat'])
        await page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: title, exact: true }).click();
      const tabs = page.getByRole('tablist', { name: 'Open chats' });
      await expect(tabs.getByRole('tab')).toHaveCount(2);
      expect(await overflow(tabs)).toEqual({ x: 0, y: 0 });

      await page.getByTestId('open-settings').click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByRole('tab', { name: 'Audit log' }).click();
      const table = dialog.getByRole('table', { name: 'Audit log' });
      await expect(table.locator('tbody tr').first()).toBeVisible();
      const scroller = table.locator('xpath=..');
      if (size.width >= 1280) {
        // At 1280 px the whole table fits its pane: no sideways scrolling, the Why header and cells inside it.
        expect((await overflow(scroller)).x).toBe(0);
        const pane = await scroller.boundingBox();
        const why = await table.getByRole('columnheader', { name: 'Why' }).boundingBox();
        expect(why && pane && why.x + why.width <= pane.x + pane.width + 1).toBe(true);
        await expect(table.getByText(/not in this folder/).first()).toBeVisible();
      }
      await page.mouse.move(2, 2);
      await shot(page, `glance-${size.width}-${scheme}-audit-log`);
    });
  }
}

for (const size of SIZES) {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${size.width}×${size.height} ${scheme}: the card says why it asks, with the full trace a click away; a call that ran without asking says why`, async ({
      page,
      workbench,
    }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await filesReady(workbench);
      const { fake } = await scriptedChat(workbench, 'Why chat');
      await workbench.call('policy.update', {
        tools: { Files: { write_file: 'always-ask', list_directory: 'auto-approve' } },
      });
      await page.goto(workbench.url);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Why chat');
      const view = chatUi(page);
      fake.script(
        { kind: 'reply', toolCalls: [filesCall('list_directory', { path: '.' }, 'call_list')] },
        { kind: 'reply', toolCalls: [filesCall('write_file', { path: 'why.txt', content: 'why' }, 'call_why')] },
        { kind: 'reply', text: ['Done.'] },
      );
      await say(page, 'list, then write');
      await page.getByRole('button', { name: 'Got it' }).click();
      const card = view.card('write_file');
      // The one step that decided, in words, on the card.
      await expect(card.getByTestId('approval-why')).toContainText(
        "Asks because of the tool setting 'Files.write_file' (always ask)",
      );
      await expect(card.getByRole('button', { name: 'Change in Settings' })).toBeVisible();
      await card.getByRole('button', { name: 'Full trace' }).click();
      const trace = card.getByRole('list', { name: 'The decision order, as the policy stands now' });
      await expect(trace.getByRole('listitem').filter({ hasText: "The tool's setting — decided" })).toBeVisible();
      await expect(trace.getByRole('listitem').filter({ hasText: 'Your deny rules — did not apply' })).toBeVisible();
      // The call that ran before it says what let it run without asking.
      await expect(view.toolCalls.filter({ hasText: 'list_directory' })).toContainText(
        "Ran without asking: tool setting 'Files.list_directory'",
      );
      await page.mouse.move(2, 2);
      await shot(page, `glance-${size.width}-${scheme}-why-it-asks`);
      await card.getByRole('button', { name: 'Deny', exact: true }).click();
      await expect(view.pane.getByText('Done.')).toBeVisible();
    });
  }
}
