/** Opening the settings dialog and its sections, for the settings specs. */
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { checkAccessibility } from './axe';
import { ROOT, expect, type Workbench } from './fixtures';

export const SETTINGS_SCREENS = path.join(ROOT, 'test-results', 'screens', 'settings');

export type Section = 'Providers' | 'MCP servers' | 'Approvals' | 'Audit log' | 'Insights' | 'Audit shipping';

/** Opens the app and the settings dialog on one section; answers the dialog. */
export async function openSettings(page: Page, workbench: Workbench, section: Section): Promise<Locator> {
  await page.goto(workbench.url);
  await page.getByTestId('open-settings').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('tab', { name: section }).click();
  await expect(dialog.getByRole('heading', { level: 2, name: section })).toBeVisible();
  return dialog;
}

/** Waits until the bundled Files server is ready (its tools are known). */
export async function filesReady(workbench: Workbench): Promise<void> {
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.list')) as { servers: { name: string; status: { state: string } }[] }).servers.find(
          (server) => server.name === 'Files',
        )?.status.state,
      {
        timeout: 15_000,
      },
    )
    .toBe('ready');
}

/** A screenshot for review; the screen is checked with axe too (e2e/axe.ts). */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(SETTINGS_SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

interface Pending {
  approvals: { request: { toolCallId: string } }[];
}
interface Activity {
  activity: { status: string };
}

/**
 * A real approval cycle with the Demo provider and the Files server, through the contract: the model asks
 * to list files, the call waits, and it is answered with `decision`. Leaves audit rows (and a chat grant
 * for ALLOW_SESSION). Returns the chat's id.
 */
export async function runApprovalCycle(
  workbench: Workbench,
  options: {
    title: string;
    decision: 'TOOL_CALL_DECISION_ALLOW_SESSION' | 'TOOL_CALL_DECISION_ALLOW_ONCE' | 'TOOL_CALL_DECISION_DENY';
    reason?: string;
    chatId?: string;
  },
): Promise<string> {
  const chatId =
    options.chatId ?? ((await workbench.call('chat.create', { title: options.title })) as { id: string }).id;
  await workbench.call('chat.send', { chatId, message: { role: 'user', text: 'list files' } });
  let pending: Pending['approvals'] = [];
  await expect
    .poll(
      async () => {
        pending = ((await workbench.call('approvals.pending', { chatId })) as Pending).approvals;
        return pending.length;
      },
      { timeout: 10_000 },
    )
    .toBe(1);
  const toolCallId = pending[0]?.request.toolCallId ?? '';
  await workbench.call('chat.send', {
    chatId,
    message: {
      role: 'approval',
      toolCallApprovals: [
        { toolCallId, decision: options.decision, ...(options.reason ? { reason: options.reason } : {}) },
      ],
    },
  });
  await waitIdle(workbench, chatId);
  return chatId;
}

/** Sends "list files" in a chat whose call needs no approval (a grant or a setting allows it) and waits until it is done. */
export async function runAllowedCall(workbench: Workbench, chatId: string): Promise<void> {
  await workbench.call('chat.send', { chatId, message: { role: 'user', text: 'list files' } });
  await waitIdle(workbench, chatId);
}

async function waitIdle(workbench: Workbench, chatId: string): Promise<void> {
  await expect
    .poll(async () => ((await workbench.call('chat.messages', { chatId })) as Activity).activity.status, {
      timeout: 10_000,
    })
    .toBe('idle');
}
