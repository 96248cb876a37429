/**
 * The app's inbox answers what a `workbench chat` holds (docs/user/approvals.md#one-inbox): a real `workbench chat`
 * runs in a terminal (tmux) on browser mode's data folder, with its own server-everything, whose sampling request it
 * holds; the sidebar's count and the window title count it (docs/user/approvals.md "What waits"), the app's inbox
 * lists it with its holder, offers only what another process may give, and answers it — the request, then the
 * model's answer — through the answers inbox. The terminal withdraws its question and the chat goes on, and the count
 * goes back; the audit log says the answers came from the app. A tool call the terminal asks about is counted too, as
 * it comes and goes. Screenshots in light and dark go to
 * test-results/screens/ (inbox-held-elsewhere-*.png, sidebar-held-elsewhere-count-*.png), each checked with axe.
 */
import { startFakeLlmServer, type FakeTurn } from '../src/main/llm/testing/fake-llm-server';
import { tmuxAvailable } from '../src/cli/testing/cli-process';
import { startInTmux, type TmuxSession } from '../src/cli/testing/tmux-session';
import { SCREENS, shootBoth } from './chat-ui';
import { expect, test } from './fixtures';

const SERVER = 'Everything';

interface AuditRows {
  entries: { toolCallId: string; kind: string; decision: string | null; decidedBy: string | null; toolName: string }[];
}

test.skip(!tmuxAvailable(), 'tmux is not installed here; .ci/run installs it');

test("the app's inbox lists a sampling request and a form held by `workbench chat` and answers them, from the app", async ({
  page,
  workbench,
}) => {
  test.setTimeout(240_000);
  const turns: FakeTurn[] = [];
  const fake = await startFakeLlmServer({
    respond: (request) => {
      const body = request.body as { tools?: unknown[] };
      if (!body.tools || body.tools.length === 0)
        return { kind: 'reply', text: ['A haiku from the model.'], usage: { input: 12, output: 6 } };
      return turns.shift() ?? { kind: 'reply', text: ['All done.'] };
    },
  });
  let terminal: TmuxSession | undefined;
  try {
    await workbench.call('providers.add', {
      kind: 'openai',
      id: 'scripted',
      label: 'Scripted',
      baseURL: fake.baseURL('openai'),
      apiKey: 'sk-test-key-0123456789',
      defaultModel: 'fake-large',
    });
    await workbench.call('mcp.add', { name: SERVER, server: { package: '@modelcontextprotocol/server-everything' } });
    await workbench.call('policy.update', {
      tools: {
        [SERVER]: { 'trigger-sampling-request': 'auto-approve', 'trigger-elicitation-request': 'auto-approve' },
      },
    });
    const tools = async (): Promise<{ name: string; providerName: string }[]> =>
      ((await workbench.call('mcp.tools', { name: SERVER })) as { tools: { name: string; providerName: string }[] })
        .tools;
    await expect
      .poll(async () => (await tools()).some((tool) => tool.name === 'trigger-sampling-request'), { timeout: 30_000 })
      .toBe(true);
    const providerName = (await tools()).find((tool) => tool.name === 'trigger-sampling-request')?.providerName;
    turns.push({
      kind: 'reply',
      toolCalls: [
        {
          id: 'call_sampling',
          name: providerName as string,
          argumentChunks: [JSON.stringify({ prompt: 'a haiku about reviews', maxTokens: 50 })],
        },
      ],
    });

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(workbench.url);
    const inbox = page.getByRole('dialog', { name: 'Waiting for you' });
    const count = page.getByTestId('inbox-count');
    await expect(page.getByRole('button', { name: /Waiting for you/ })).toBeVisible();
    await expect(count).toHaveCount(0);
    await expect(page).toHaveTitle('AI Workbench');

    // `workbench chat` in a terminal of its own: its model calls the tool, and the server asks it to sample.
    terminal = startInTmux(['chat', '--provider', 'scripted'], workbench.dataDir);
    await terminal.waitFor('› ');
    terminal.type('write a haiku');
    await terminal.waitFor(`Allow ${SERVER} to use your model?`);

    // The sidebar's count and the window title count it: the app looks every second, no event comes from there.
    await expect(count).toContainText('1 request waits for your answer', { timeout: 15_000 });
    await expect(page).toHaveTitle('(1) AI Workbench');
    await shootBoth(page, 'sidebar-held-elsewhere-count');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page
        .locator('.sidebar-footer')
        .screenshot({ path: `${SCREENS}/sidebar-held-elsewhere-count-footer-${scheme}.png`, animations: 'disabled' });
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // The inbox lists it, with the process that holds it.
    await page.getByRole('button', { name: /Waiting for you/ }).click();
    const item = inbox.getByRole('listitem', {
      name: new RegExp(`^Sampling request from ${SERVER}, held by workbench chat \\(pid \\d+\\)$`),
    });
    await expect(item).toBeVisible({ timeout: 15_000 });
    const held = item.getByTestId('held-elsewhere');
    await expect(held).toContainText(/^Held by workbench chat \(pid \d+\)\. Your answer goes to it/);
    await expect(held).toContainText('"Allow for this chat" and changes to the prompt are given only where it is held');
    // Only what another process may give: no "Allow for this chat", and the prompt cannot be edited here.
    await expect(item.getByRole('button', { name: 'Allow for this chat' })).toHaveCount(0);
    await expect(item.getByRole('textbox', { name: /Message 1/ })).toHaveAttribute('readonly', '');
    await expect(item.getByRole('textbox', { name: /Message 1/ })).toHaveValue(/a haiku about reviews/);
    await shootBoth(page, 'inbox-held-elsewhere');

    await item.getByRole('button', { name: 'Allow once' }).click();
    // The terminal withdraws its question; the model writes, and its answer waits — in the terminal and in the inbox.
    await terminal.waitFor(`→ ${SERVER}'s request was answered elsewhere meanwhile (Allowed once)`);
    await terminal.waitFor(`Send the model's answer to ${SERVER}?`);
    const answer = inbox
      .getByTestId('server-request-card')
      .filter({ hasText: `Send the model's answer to ${SERVER}?` });
    await expect(answer).toBeVisible({ timeout: 15_000 });
    await expect(answer.getByRole('textbox', { name: 'Answer' })).toHaveValue('A haiku from the model.');
    await expect(answer.getByRole('textbox', { name: 'Answer' })).toHaveAttribute('readonly', '');
    await shootBoth(page, 'inbox-held-elsewhere-answer');
    await answer.getByRole('button', { name: 'Send answer' }).click();

    // The chat went on in the terminal; the request left the inbox, the count and the title.
    await terminal.waitFor('All done.');
    await expect(inbox).toContainText('Nothing waits for you.', { timeout: 15_000 });
    await expect(count).toHaveCount(0);
    await expect(page).toHaveTitle('AI Workbench');
    const rows = ((await workbench.call('audit.query', { requestedBy: 'server', actor: 'user' })) as AuditRows).entries;
    expect(rows.map((row) => row.decidedBy).reverse()).toEqual([
      'the person: allow-once from the app',
      'the person: send from the app',
    ]);

    // A form the same way: filled in the inbox, checked and applied by the process that holds it.
    const form = (await tools()).find((tool) => tool.name === 'trigger-elicitation-request')?.providerName;
    turns.push(
      { kind: 'reply', toolCalls: [{ id: 'call_form', name: form as string, argumentChunks: ['{}'] }] },
      { kind: 'reply', text: ['Thanks for the details.'] },
    );
    await terminal.waitFor('› ', 2);
    terminal.type('ask me');
    await terminal.waitFor(`${SERVER} asks for information`);
    const card = inbox.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
    await expect(card).toBeVisible({ timeout: 15_000 });
    await expect(page).toHaveTitle('(1) AI Workbench');
    await expect(card.getByTestId('held-elsewhere')).toContainText(/^Held by workbench chat \(pid \d+\)/);
    // Every answer a form takes is offered from here: nothing is withheld.
    await expect(card.getByTestId('held-elsewhere-withheld')).toHaveCount(0);
    await card.getByLabel(/^String( \*)?$/).fill('Ada Lovelace');
    await card.getByLabel('String with email format').fill('not-an-email');
    await card.getByLabel('Boolean', { exact: true }).check();
    await card.getByRole('button', { name: 'Accept' }).click();
    // Refused by the holder's own check, with why; nothing was sent and it still waits.
    await expect(card.getByRole('alert')).toContainText('Not applied: The answer does not fit the form');
    await card.getByLabel('String with email format').fill('ada@example.com');
    await card.getByRole('button', { name: 'Accept' }).click();
    await terminal.waitFor(`→ ${SERVER}'s request was answered elsewhere meanwhile (Accepted)`);
    await terminal.waitFor('Thanks for the details.');
    expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('Name: Ada Lovelace');
    await expect(inbox).toContainText('Nothing waits for you.', { timeout: 15_000 });
    await expect(page).toHaveTitle('AI Workbench');

    // A tool call the terminal asks about is counted here as it comes and goes: no event comes from there either.
    const echo = (await tools()).find((tool) => tool.name === 'echo')?.providerName;
    turns.push(
      { kind: 'reply', toolCalls: [{ id: 'call_echo', name: echo as string, argumentChunks: ['{"message":"hi"}'] }] },
      { kind: 'reply', text: ['Not run, then.'] },
    );
    await terminal.waitFor('› ', 3);
    terminal.type('say hi');
    await terminal.waitFor(`Allow tool call from ${SERVER}?`);
    await expect(count).toContainText('1 request waits for your answer', { timeout: 15_000 });
    await expect(page).toHaveTitle('(1) AI Workbench');
    terminal.type('d');
    await terminal.waitFor('Not run, then.');
    await expect(count).toHaveCount(0, { timeout: 15_000 });
    await expect(page).toHaveTitle('AI Workbench');
  } finally {
    await terminal?.close();
    await fake.close();
  }
});
