/**
 * Accessibility (issue 16 §3, docs/user/accessibility.md). Every screenshot the specs take is checked with axe-core
 * in its colour scheme (e2e/axe.ts); here, the first screens a person meets are checked in both schemes at once.
 */
import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { chatUi, filesReady, say } from './chat-ui';

/** Axe's violations of the page as it is, in light and in dark, each naming the screen. */
async function violations(page: Page, screen: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await axeViolations(page)).map((violation) => `[${screen}, ${scheme}] ${violation}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('the chat: empty, a waiting card, decided cards, a denial, the tool blocks', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  const problems: string[] = [];
  problems.push(...(await violations(page, 'welcome')));
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await expect(view.input).toBeEnabled();
  problems.push(...(await violations(page, 'empty chat')));
  await say(page, 'write a11y.txt: hello');
  await expect(view.card('write_file')).toBeVisible();
  problems.push(...(await violations(page, 'waiting card')));
  await view.card('write_file').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.toolCalls.first()).toContainText('Done');
  problems.push(...(await violations(page, 'allowed call')));
  expect(problems, problems.join('\n')).toEqual([]);
});

test('settings pages', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByTestId('open-settings').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const problems: string[] = [];
  for (const section of ['Providers', 'MCP servers', 'Approvals', 'Audit log', 'Audit shipping']) {
    await dialog.getByRole('tab', { name: section }).click();
    await expect(dialog.getByRole('heading', { level: 2, name: section })).toBeVisible();
    problems.push(...(await violations(page, `settings: ${section}`)));
  }
  expect(problems, problems.join('\n')).toEqual([]);
});
