/**
 * The CLI and browser mode on one data folder at the same time (issue #7 "same data"): each sees the other's chats,
 * both write the audit log (concurrently too), and the chain verifies. The CLI is the built out/main/cli.js.
 */
import type { AuditPage } from '../src/shared/audit';
import type { Chat } from '../src/shared/chat';
import { cliJson, runCli } from '../src/cli/testing/cli-process';
import { expect, test } from './fixtures';
import { ui } from './ui';

interface Messages {
  messages: { role: string }[];
  activity: { status: string };
}

test("the CLI writes while browser mode runs: both see each other's chats, and the audit log verifies", async ({
  page,
  workbench,
}) => {
  test.setTimeout(300_000);
  const home = workbench.dataDir;

  // A chat started in the CLI (the Demo provider asks to list files; no one can be asked, so it is denied).
  const cliRun = await runCli(['run', 'list files'], { home });
  expect(cliRun.code).toBe(2);
  const [cliChat] = await cliJson<Chat[]>(['chats', 'list'], { home });
  expect(cliChat?.title).toBe('list files');

  // …is in the app: over the contract, and in the UI.
  const { chats } = (await workbench.call('chat.list')) as { chats: Chat[] };
  expect(chats.map((chat) => chat.id)).toEqual([cliChat?.id]);
  const fromApp = (await workbench.call('chat.messages', { chatId: cliChat?.id })) as Messages;
  expect(fromApp.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
  await page.goto(workbench.url);
  await expect(ui(page).itemButton('list files')).toBeVisible();

  // A chat of the app, whose tools run without asking, and a CLI run at the same moment: both write the audit log.
  const appChat = (await workbench.call('chat.create', { title: 'From the app' })) as Chat;
  await workbench.call('approvals.setChatMode', { chatId: appChat.id, mode: 'never-ask' });
  const [concurrentRun] = await Promise.all([
    runCli(['run', 'list files', '--chat', cliChat?.id as string], { home }),
    workbench.call('chat.send', { chatId: appChat.id, message: { role: 'user', text: 'list files' } }),
  ]);
  expect(concurrentRun.code).toBe(2);
  await expect
    .poll(async () => ((await workbench.call('chat.messages', { chatId: appChat.id })) as Messages).activity.status, {
      timeout: 30_000,
    })
    .toBe('idle');

  // …is in the CLI.
  const listed = await cliJson<Chat[]>(['chats', 'list'], { home });
  expect(listed.map((chat) => chat.title).sort()).toEqual(['From the app', 'list files']);
  const shown = await runCli(['chats', 'show', appChat.id.slice(0, 8)], { home });
  expect(shown.stdout).toMatch(/⏺ Files · list_directory · ok/);

  const rows = (await cliJson<AuditPage>(['audit', 'query'], { home })).entries;
  expect(
    rows
      .map((row) =>
        `${row.chatId === appChat.id ? 'app' : 'cli'} ${row.kind} ${row.decision ?? row.outcome} ${row.actor ?? ''}`.trim(),
      )
      .sort(),
  ).toEqual([
    'app decision auto_allow policy',
    // The chat's mode set to never-ask, recorded as a change of the policy by the person in the app.
    'app policy null user',
    'app result success',
    'cli decision deny system',
    'cli decision deny system',
  ]);
  const verified = await runCli(['audit', 'verify'], { home });
  expect(verified.code).toBe(0);
  expect(verified.stdout).toMatch(/^OK: 5 rows verify/);
  expect(await workbench.call('audit.verify')).toMatchObject({ ok: true, rowCount: 5 });

  // Settings too: what the CLI writes while the app runs is neither lost nor overwritten by the app's next change.
  await cliJson(['policy', 'set', 'tool', 'Files', 'read_text_file', 'auto-approve'], { home });
  await workbench.call('policy.update', { timeoutSeconds: 120 });
  const policy = await cliJson<{ policy: { timeoutSeconds: number; tools: unknown } }>(['policy', 'show'], { home });
  expect(policy.policy).toMatchObject({ timeoutSeconds: 120, tools: { Files: { read_text_file: 'auto-approve' } } });

  await page.reload();
  await expect(ui(page).itemButton('From the app')).toBeVisible();
  await page.screenshot({ path: 'test-results/e2e/cli-concurrent-chats.png' });
});
