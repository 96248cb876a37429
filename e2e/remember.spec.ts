/**
 * Remember from the card (docs/user/approvals.md), end to end: card → More… → confirmation → the rule or setting saved
 * → the next call like it runs without asking → Settings highlights it with Undo → asking comes back. The scripted fake
 * LLM server asks for real calls on the real Files server.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Page } from '@playwright/test';
import type { FakeLlmServer } from '../src/main/llm/testing/fake-llm-server';
import { ROOT, expect, test, type Workbench } from './fixtures';
import { checkAccessibility } from './axe';
import { chatUi, filesCall, filesReady, say, scriptedChat } from './chat-ui';

// Each test drives several round trips through real servers; a loaded machine needs more than the default 30 s.
test.describe.configure({ timeout: 120_000 });

const SHOTS = path.join(ROOT, '.cache', 'screenshots');

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

async function open(page: Page, workbench: Workbench, scheme: 'light' | 'dark' = 'light'): Promise<FakeLlmServer> {
  await filesReady(workbench);
  const { fake } = await scriptedChat(workbench, 'Remember chat');
  await fs.mkdir(path.join(workbench.dataDir, 'sandbox', 'notes'), { recursive: true });
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Remember chat');
  return fake;
}

/** The model writes one file (its content the call's id unless given), then says so. */
function scriptWrite(fake: FakeLlmServer, file: string, id: string, content = id): void {
  fake.script(
    { kind: 'reply', toolCalls: [filesCall('write_file', { path: file, content }, id)] },
    { kind: 'reply', text: [`Wrote ${file}.`] },
  );
}

test.afterEach(({ workbench }, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus) console.log(`--- server stderr ---\n${workbench.stderr}`);
});

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: Always allow this tool — confirmation, runs now and next time, Settings highlights it, Undo asks again`, async ({
    page,
    workbench,
  }) => {
    const fake = await open(page, workbench, scheme);
    const view = chatUi(page);
    scriptWrite(fake, 'one.txt', 'call_1');
    await say(page, 'write one');
    const card = view.card('write_file');
    // Seed 000's three buttons stay as they are; "More…" sits beside them.
    for (const name of ['Allow for this chat', 'Allow once', 'Deny'])
      await expect(card.getByRole('button', { name, exact: true })).toBeVisible();
    await card.getByRole('button', { name: 'More…' }).click();
    const menu = page.getByRole('menu');
    await expect(menu.getByRole('menuitem', { name: 'Always allow this tool' })).toBeFocused();
    await expect(menu.getByRole('menuitem', { name: 'Always allow calls like this' })).toBeVisible();
    await expect(menu.getByRole('menuitem', { name: 'Auto-approve all tools of this server' })).toBeVisible();
    await page.mouse.move(2, 2);
    await shot(page, `${scheme}-remember-menu`);
    await menu.getByRole('menuitem', { name: 'Always allow this tool' }).click();

    const dialog = page.getByTestId('remember-dialog');
    await expect(dialog.getByRole('heading')).toHaveText('Always allow this tool?');
    await expect(dialog.getByTestId('remember-change')).toContainText(
      "The tool setting of Files.write_file becomes 'Auto-approve'",
    );
    await expect(dialog).toContainText('Where to undo: Settings › Approvals › Servers and tools');
    await shot(page, `${scheme}-remember-confirm-tool`);
    await dialog.getByRole('button', { name: 'Allow and remember' }).click();

    await expect(view.pane.getByText('Wrote one.txt.')).toBeVisible();
    expect(await fs.readFile(path.join(workbench.dataDir, 'sandbox', 'one.txt'), 'utf8')).toBe('call_1');
    const notice = page.getByTestId('remembered-notice');
    await expect(notice).toContainText('Remembered: Always allow this tool: Files.write_file');
    const policy = (await workbench.call('policy.get', {})) as {
      policy: { tools: Record<string, Record<string, string>> };
    };
    expect(policy.policy.tools).toEqual({ Files: { write_file: 'auto-approve' } });
    const rows = (await workbench.call('audit.query', { kind: 'decision', toolName: 'write_file' })) as {
      entries: { decision: string; decidedBy: string }[];
    };
    expect(rows.entries[0]).toMatchObject({
      decision: 'allow_once',
      decidedBy: expect.stringContaining("You chose 'Always allow this tool'"),
    });

    // The next call runs without asking, and says why.
    scriptWrite(fake, 'two.txt', 'call_2');
    await say(page, 'write two');
    await expect(view.pane.getByText('Wrote two.txt.')).toBeVisible();
    await expect(view.cards).toHaveCount(0);
    await expect(view.toolCalls.nth(1)).toContainText('Auto-approved');
    const explained = (await workbench.call('policy.explain', {
      server: 'Files',
      tool: 'write_file',
      args: { path: 'x.txt' },
    })) as { reason: string };
    expect(explained.reason).toBe("Auto-approved: tool setting 'Files.write_file'");

    // Settings show it highlighted, with Undo; Undo puts asking back.
    await notice.getByRole('button', { name: 'Show in Settings' }).click();
    const settings = page.getByTestId('settings');
    const highlight = settings.getByTestId('remembered-setting');
    await expect(highlight).toContainText('Always allow this tool: Files.write_file');
    await expect(settings.locator('tr.is-remembered')).toContainText('write_file');
    await page.mouse.move(2, 2);
    await shot(page, `${scheme}-remember-settings-highlight`);
    await highlight.getByRole('button', { name: 'Undo' }).click();
    await expect(highlight).toBeHidden();
    await expect
      .poll(
        async () =>
          ((await workbench.call('policy.get', {})) as { policy: { tools: Record<string, unknown> } }).policy.tools,
      )
      .toEqual({});
    await page.keyboard.press('Escape');
    scriptWrite(fake, 'three.txt', 'call_3');
    await say(page, 'write three');
    await expect(view.card('write_file')).toBeVisible();
  });
}

test('Always allow calls like this: the suggested folder rule, edited and checked before saving; in the folder it runs, outside it asks', async ({
  page,
  workbench,
}) => {
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptWrite(fake, 'notes/a.md', 'call_a', 'note');
  await say(page, 'write a note');
  await view.card('write_file').getByRole('button', { name: 'More…' }).click();
  await page.getByRole('menuitem', { name: 'Always allow calls like this' }).click();
  const dialog = page.getByTestId('remember-dialog');
  const value = dialog.getByRole('textbox', { name: 'Value of /path' });
  await expect(value).toHaveValue('notes/**');
  await expect(dialog.getByTestId('remember-change')).toContainText('Files write_file when /path matches notes/**');
  await shot(page, 'light-remember-confirm-rule');

  // An edit that no longer matches this call is refused, with the reason, before anything is saved.
  await value.fill('other/**');
  await expect(dialog.getByTestId('remember-refusal')).toContainText('does not match this call');
  await expect(dialog.getByRole('button', { name: 'Allow and remember' })).toHaveAttribute('aria-disabled', 'true');
  await value.fill('notes/**');
  await expect(dialog.getByTestId('remember-refusal')).toBeHidden();
  await dialog.getByRole('button', { name: 'Allow and remember' }).click();
  await expect(view.pane.getByText('Wrote notes/a.md.')).toBeVisible();

  const { policy } = (await workbench.call('policy.get', {})) as {
    policy: { rules: { id: string; effect: string; args: unknown }[] };
  };
  expect(policy.rules).toEqual([
    expect.objectContaining({
      effect: 'allow',
      args: [
        { pointer: '/path', match: 'glob', value: 'notes/**' },
        { pointer: '/content', match: 'equals', value: 'note' },
      ],
    }),
  ]);
  const ruleId = policy.rules[0]?.id as string;

  scriptWrite(fake, 'notes/b.md', 'call_b', 'note');
  await say(page, 'another note');
  await expect(view.pane.getByText('Wrote notes/b.md.')).toBeVisible();
  await expect(view.cards).toHaveCount(0);
  // The same folder with other content is not "like this": it asks.
  scriptWrite(fake, 'notes/e.md', 'call_e', 'other');
  await say(page, 'a different note');
  await expect(view.card('write_file')).toBeVisible();
  await view.card('write_file').getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.cards).toHaveCount(0);
  const explained = (await workbench.call('policy.explain', {
    server: 'Files',
    tool: 'write_file',
    args: { path: 'notes/c.md', content: 'note' },
  })) as { source: { ruleId: string }; reason: string };
  expect(explained.source.ruleId).toBe(ruleId);
  expect(explained.reason).toContain('remembered from an approval card');

  // The chat's notice undoes it too.
  await page.getByTestId('remembered-notice').getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByTestId('remembered-notice')).toContainText('Undone — it asks again');
  scriptWrite(fake, 'notes/d.md', 'call_d');
  await say(page, 'one more');
  await expect(view.card('write_file')).toBeVisible();
});

test('never offered where it cannot work: a deny rule catches the call, or the rule would overlap an ask rule — each says why', async ({
  page,
  workbench,
}) => {
  await workbench.call('policy.update', {
    rules: {
      add: [
        {
          id: 'no-secrets',
          effect: 'deny',
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: 'secret/**' }],
        },
        {
          id: 'ask-drafts',
          effect: 'ask',
          server: 'Files',
          tool: 'write_file',
          args: [{ pointer: '/path', match: 'glob', value: 'notes/drafts/**' }],
        },
      ],
    },
  });
  const fake = await open(page, workbench);
  const view = chatUi(page);
  scriptWrite(fake, 'notes/a.md', 'call_a');
  await say(page, 'write a note');
  await view.card('write_file').getByRole('button', { name: 'More…' }).click();
  const like = page.getByRole('menuitem', { name: 'Always allow calls like this' });
  await expect(like).toHaveAttribute('aria-disabled', 'true');
  await expect(page.getByRole('menu')).toContainText('could also allow calls that your rule #2 means to ask about');
  await expect(page.getByRole('menuitem', { name: 'Always allow this tool' })).not.toHaveAttribute(
    'aria-disabled',
    'true',
  );
  await page.mouse.move(2, 2);
  await shot(page, 'light-remember-menu-refused');
  // Escape closes the menu only: the call still waits.
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toBeHidden();
  await expect(view.card('write_file').getByRole('button', { name: 'Allow once' })).toBeVisible();
  await view.card('write_file').getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.pane.getByText('Wrote notes/a.md.')).toBeVisible();

  // A deny rule added while a call waits (another window, the CLI) catches it: nothing is offered for it.
  scriptWrite(fake, 'notes/x.md', 'call_x');
  await say(page, 'write x');
  await expect(view.card('write_file')).toBeVisible();
  await workbench.call('policy.update', {
    rules: {
      add: [
        {
          id: 'no-x',
          effect: 'deny',
          server: 'Files',
          tool: '*',
          args: [{ pointer: '/path', match: 'glob', value: 'notes/x.*' }],
        },
      ],
    },
  });
  await view.card('write_file').getByRole('button', { name: 'More…' }).click();
  for (const name of [
    'Always allow this tool',
    'Always allow calls like this',
    'Auto-approve all tools of this server',
  ]) {
    await expect(page.getByRole('menuitem', { name })).toHaveAttribute('aria-disabled', 'true');
  }
  await expect(page.getByRole('menu')).toContainText('A deny rule catches this call');
});
