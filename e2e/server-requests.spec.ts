/**
 * Server requests in the UI (docs/user/server-requests.md): server-everything (a real child process of browser mode)
 * asks to sample the chat's model (the fake LLM server) and to ask the person (a form, a page to open); the person
 * answers on the cards. Screenshots in light and dark go to .cache/screenshots/.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../src/main/llm/testing/fake-llm-server';
import { chatUi, say, shootBoth } from './chat-ui';
import { ROOT, expect, test, type Workbench } from './fixtures';

const SHOTS = path.join(ROOT, '.cache', 'screenshots');
const SERVER = 'Everything';

interface Setup {
  fake: FakeLlmServer;
  /** The chat's turns; a sampling request (no tools offered) is answered with `sampledText`. */
  turns: FakeTurn[];
  chatId: string;
}

async function setUp(page: Page, workbench: Workbench): Promise<Setup> {
  const turns: FakeTurn[] = [];
  const fake = await startFakeLlmServer({
    respond: (request) => {
      const body = request.body as { tools?: unknown[] };
      if (!body.tools || body.tools.length === 0)
        return { kind: 'reply', text: ['A haiku from the model.'], usage: { input: 12, output: 6 } };
      return turns.shift() ?? { kind: 'reply', text: ['All done.'] };
    },
  });
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
      [SERVER]: {
        'trigger-sampling-request': 'auto-approve',
        'trigger-elicitation-request': 'auto-approve',
        'trigger-url-elicitation': 'auto-approve',
      },
    },
  });
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.tools', { name: SERVER })) as { tools: { name: string }[] }).tools.some(
          (tool) => tool.name === 'trigger-url-elicitation',
        ),
      {
        timeout: 30_000,
      },
    )
    .toBe(true);
  const chat = (await workbench.call('chat.create', {
    title: 'Server requests',
    providerId: 'scripted',
    model: 'fake-large',
  })) as { id: string };
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Server requests');
  return { fake, turns, chatId: chat.id };
}

async function toolCall(workbench: Workbench, tool: string, args: Record<string, unknown>): Promise<FakeTurn> {
  const tools = (await workbench.call('mcp.tools', { name: SERVER })) as {
    tools: { name: string; providerName: string }[];
  };
  const providerName = tools.tools.find((item) => item.name === tool)?.providerName as string;
  return {
    kind: 'reply',
    toolCalls: [
      { id: `call_${tool.length}_${Date.now()}`, name: providerName, argumentChunks: [JSON.stringify(args)] },
    ],
  };
}

// Up to four axe runs and screenshots a test, and a real server-everything: 20 s alone here, 50 s beside another
// worker, more on a loaded host.
test.describe.configure({ timeout: 180_000 });

test('sampling: the prompt is shown and edited in the chat, then the answer is shown and sent back', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1000 });
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  turns.push(
    await toolCall(workbench, 'trigger-sampling-request', { prompt: 'write a haiku about tests', maxTokens: 64 }),
    { kind: 'reply', text: ['The server got its answer.'] },
  );
  await say(page, 'sample please');

  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="sampling-request"]');
  await expect(card.getByRole('heading')).toHaveText(`Allow ${SERVER} to use your model?`);
  await expect(card.getByLabel('System prompt')).toHaveValue('You are a helpful test server.');
  const message = card.getByLabel('Message 1 · user');
  await expect(message).toHaveValue('Resource trigger-sampling-request context: write a haiku about tests');
  await expect(card).toContainText('fake-large (scripted)');
  await expect(card).toContainText('0 of 10,000 tokens used in this chat');
  // The same countdown as a tool call's card: nobody deciding in time ends the request as timed out.
  await expect(card.getByTestId('countdown')).toHaveText(/^Times out in \d+:\d\d$/);
  await message.fill('Write a haiku about careful reviews.');
  await shootBoth(page, 'sampling-request', SHOTS);
  const before = fake.generations().length;
  await card.getByRole('button', { name: 'Allow once' }).click();

  const answer = view.pane.locator('[data-testid="server-request-card"][data-kind="sampling-answer"]');
  await expect(answer.getByRole('heading')).toHaveText(`Send the model's answer to ${SERVER}?`);
  await expect(answer.getByLabel('Answer')).toHaveValue('A haiku from the model.');
  expect(JSON.stringify(fake.generations()[before]?.body)).toContain('careful reviews');
  await answer.getByLabel('Answer').fill('An edited haiku.');
  await shootBoth(page, 'sampling-answer', SHOTS);
  await answer.getByRole('button', { name: 'Send answer' }).click();
  await expect(view.pane.getByText('The server got its answer.')).toBeVisible();
  await expect(view.pane.locator('[data-testid="server-request-card"]')).toHaveCount(0);
  const sent = JSON.stringify(fake.generations().at(-1)?.body);
  expect(sent).toContain('An edited haiku.');
  // A server that asked the model to write for it has its sampling settings shown in Settings, unasked.
  await page.getByTestId('open-settings').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Approvals' }).click();
  const everything = dialog
    .getByRole('list', { name: 'Server and tool settings' })
    .getByRole('listitem', { name: SERVER });
  await everything.getByRole('button', { name: new RegExp(`^${SERVER} \\d+ tools?`) }).click();
  await expect(everything.getByRole('group', { name: `When ${SERVER} asks the model` })).toBeVisible();
  await expect(everything.getByTestId('sampling-unused')).toHaveCount(0);
  await fake.close();
});

test('elicitation form: rendered from its schema, refused while invalid, accepted once valid', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1400 });
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  turns.push(await toolCall(workbench, 'trigger-elicitation-request', {}), {
    kind: 'reply',
    text: ['Thanks for the details.'],
  });
  await say(page, 'ask me');
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  await expect(card.getByRole('heading')).toHaveText(`${SERVER} asks for information`);
  await expect(card.getByLabel('String with default')).toHaveValue('It was a dark and stormy night.');
  await expect(card.getByLabel('Integer', { exact: true })).toHaveValue('42');
  await expect(card.getByLabel('Titled Single Select Enum', { exact: true })).toHaveValue('hero-1');
  await card.getByLabel('String with email format').fill('not-an-email');
  const integer = card.getByLabel('Integer', { exact: true });
  await integer.fill('500');
  await card.getByRole('button', { name: 'Accept' }).click();
  // Each problem beside its field, named by the field's title, not the schema's key; the first wrong field has focus
  // and everything typed is still there.
  const name = card.getByLabel(/^String( \*)?$/);
  const email = card.getByLabel('String with email format');
  await expect(card.getByRole('alert')).toHaveText('Not sent: 3 fields do not fit the form (marked above).');
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription(/String is required/);
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAccessibleDescription(/String with email format must be an email address/);
  await expect(integer).toHaveAccessibleDescription(/Integer must be 100 or less/);
  await expect(card.getByTestId('elicitation-problem')).toHaveCount(3);
  await expect(card).not.toContainText('must match format');
  await expect(name).toBeFocused();
  await expect(email).toHaveValue('not-an-email');
  await expect(integer).toHaveValue('500');
  await expect(card.getByLabel('Boolean', { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
  await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'elicitation-form-problems', SHOTS);
  // A corrected field loses its mark at once; the other keeps it until it is corrected too.
  await name.fill('Ada Lovelace');
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await expect(email).toHaveAttribute('aria-invalid', 'true');
  await integer.fill('7');
  await card.getByLabel('String with email format').fill('ada@example.com');
  await card.getByLabel('Boolean', { exact: true }).check();
  await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'elicitation-form', SHOTS);
  await card.getByRole('button', { name: 'Accept' }).click();
  await expect(view.pane.getByText('Thanks for the details.')).toBeVisible();
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('Name: Ada Lovelace');
  expect(JSON.stringify(fake.generations().at(-1)?.body)).toContain('Integer: 7');
  await fake.close();
});

test('elicitation URL: the full address is shown, and the page opens only after "Open page"', async ({
  page,
  workbench,
  context,
}) => {
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  const url = 'https://auth.example.com/authorize?client_id=workbench&state=e2e';
  const opened: string[] = [];
  await context.route('https://auth.example.com/**', (route) => {
    opened.push(route.request().url());
    return route.fulfill({ contentType: 'text/html', body: '<title>Signed in</title>' });
  });
  turns.push(
    await toolCall(workbench, 'trigger-url-elicitation', { url, message: 'Sign in to Example to continue.' }),
    { kind: 'reply', text: ['Signed in.'] },
  );
  await say(page, 'sign me in');
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-url"]');
  await expect(card.getByTestId('elicitation-url')).toHaveText(url);
  await expect(card).toContainText('on auth.example.com');
  await shootBoth(page, 'elicitation-url', SHOTS);
  expect(opened).toEqual([]);
  expect(context.pages()).toHaveLength(1);
  const popup = page.waitForEvent('popup');
  await card.getByRole('button', { name: 'Open page' }).click();
  await (await popup).waitForLoadState();
  expect(opened).toEqual([url]);
  await expect(view.pane.getByText('Signed in.')).toBeVisible();
  await fake.close();
});

test("a page declined before a call: the tool's block says so in our words, then shows the server's own, as text", async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  turns.push(
    await toolCall(workbench, 'trigger-url-elicitation', { url: 'https://example.com/after', errorPath: true }),
    { kind: 'reply', text: ['The page was declined.'] },
  );
  await say(page, 'needs a page first');
  // server-everything answers -32042 naming a page to open first: asked as a card, declined here.
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-url"]');
  await expect(card.getByTestId('elicitation-url')).toHaveText('https://modelcontextprotocol.io');
  await card.getByRole('button', { name: 'Decline' }).click();
  await expect(view.pane.getByText('The page was declined.')).toBeVisible();
  const block = view.pane.getByTestId('tool-call').last();
  await block.getByRole('button', { name: /trigger-url-elicitation/ }).click();
  const declined = block.getByTestId('page-declined');
  await expect(declined).toContainText(
    `Not run: ${SERVER} needs a page opened first, and you declined it. Nothing was sent to the tool.`,
  );
  await expect(declined).toContainText('https://modelcontextprotocol.io');
  await expect(declined.getByTestId('server-words')).toHaveText('This request requires browser-based authorization.');
  // No raw protocol line beside it, and no JSON-RPC prefix.
  await expect(block).not.toContainText('MCP error');
  await expect(block.locator('.tool-output-error')).toHaveCount(0);
  await block.scrollIntoViewIfNeeded();
  await shootBoth(page, 'page-declined', SHOTS);
  await fake.close();
});

test('a request no single chat made waits in "Server requests"; Decline answers it there', async ({
  page,
  workbench,
}) => {
  const { fake, turns, chatId } = await setUp(page, workbench);
  const view = chatUi(page);
  turns.push(await toolCall(workbench, 'trigger-elicitation-request', {}));
  await say(page, 'first');
  await expect(view.pane.locator('[data-kind="elicitation-form"]')).toBeVisible({ timeout: 20_000 });
  // A second chat runs the same server's tool now: whose is the next request? Nobody can tell, so it waits in the tray.
  const other = (await workbench.call('chat.create', {
    title: 'Other',
    providerId: 'scripted',
    model: 'fake-large',
  })) as { id: string };
  turns.push(await toolCall(workbench, 'trigger-url-elicitation', { url: 'https://example.com/which-chat' }));
  await workbench.call('chat.send', { chatId: other.id, message: { role: 'user', text: 'second' } });
  const tray = page.getByTestId('server-requests-tray');
  await expect(tray.getByRole('button', { name: /Server requests/ })).toContainText('1');
  await expect(tray.getByTestId('elicitation-url')).toHaveText('https://example.com/which-chat');
  await shootBoth(page, 'server-requests-tray', SHOTS);
  await tray.getByRole('button', { name: 'Decline' }).click();
  await expect(tray).toHaveCount(0);
  await view.pane.locator('[data-kind="elicitation-form"]').getByRole('button', { name: 'Cancel' }).click();
  await expect(view.pane.locator('[data-testid="server-request-card"]')).toHaveCount(0);
  expect(chatId).not.toBe(other.id);
  await fake.close();
});

test("a server request is a card in the running exchange, in the chat's one scroll, at 1280×800 and 1024×700", async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  turns.push(await toolCall(workbench, 'trigger-elicitation-request', {}), {
    kind: 'reply',
    text: ['Thanks for the details.'],
  });
  await say(page, 'ask me inline');
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="elicitation-form"]');
  await expect(card).toBeVisible({ timeout: 20_000 });
  // In the exchange whose tool call made it, inside the message list: not docked between the list and the input.
  await expect(view.pane.locator('.message-list article.exchange [data-testid="server-request-card"]')).toHaveCount(1);
  await expect(
    view.pane.locator('.chat-view > [data-testid="server-request-card"], .chat-view > .server-requests'),
  ).toHaveCount(0);
  for (const size of [
    { width: 1280, height: 800 },
    { width: 1024, height: 700 },
  ]) {
    await page.setViewportSize(size);
    // The input keeps its place and the list keeps most of the height; the form's Accept is reached by the one scroll.
    const list = (await view.pane.locator('.message-list').boundingBox()) as { height: number };
    expect(list.height).toBeGreaterThan(size.height * 0.5);
    await expect(card.locator('form, .server-request-fields, textarea, input').first()).toBeVisible();
    const scrollers = await card.evaluate((element) => {
      const found: string[] = [];
      for (let node = element.parentElement; node; node = node.parentElement) {
        const style = (
          globalThis as unknown as { getComputedStyle(target: unknown): { overflowY: string } }
        ).getComputedStyle(node);
        if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) found.push(node.className);
      }
      return found;
    });
    expect(scrollers).toHaveLength(1);
    await card.getByRole('button', { name: 'Accept' }).scrollIntoViewIfNeeded();
    await expect(card.getByRole('button', { name: 'Accept' })).toBeInViewport();
    await shootBoth(page, `server-request-inline-${size.width}x${size.height}`, SHOTS);
  }
  await card.getByLabel(/^String( \*)?$/).fill('Ada Lovelace');
  await card.getByRole('button', { name: 'Decline' }).click();
  await expect(view.pane.locator('[data-testid="server-request-card"]')).toHaveCount(0);
  await fake.close();
});

test('sampling with an image: the card shows it as a thumbnail with its type and size, and it reaches the model', async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1200, height: 1000 });
  const { fake, turns } = await setUp(page, workbench);
  const view = chatUi(page);
  const fixture = path.join(ROOT, 'src', 'main', 'mcp', 'test-fixtures', 'sampling-image-server.ts');
  await workbench.call('mcp.add', { name: 'Pictures', server: { command: process.execPath, args: [fixture] } });
  // Contained like every local server: it may read this checkout (its code and node_modules) and nothing more.
  await workbench.call('mcp.sandboxWiden', { name: 'Pictures', grant: { kind: 'read', path: ROOT } });
  await workbench.call('policy.update', { tools: { Pictures: { 'describe-image': 'auto-approve' } } });
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.tools', { name: 'Pictures' })) as { tools: { name: string }[] }).tools.length,
      { timeout: 30_000 },
    )
    .toBe(1);
  const tools = (await workbench.call('mcp.tools', { name: 'Pictures' })) as { tools: { providerName: string }[] };
  turns.push(
    {
      kind: 'reply',
      toolCalls: [{ id: 'call_image', name: tools.tools[0]?.providerName as string, argumentChunks: ['{}'] }],
    },
    { kind: 'reply', text: ['Described.'] },
  );
  await say(page, 'describe the picture');
  const card = view.pane.locator('[data-testid="server-request-card"][data-kind="sampling-request"]');
  await expect(card.getByLabel('Message 1 · user')).toHaveValue('What is in this picture?');
  const media = card.getByTestId('sampling-media');
  await expect(media).toContainText(/Image · image\/png, \d+ B/);
  const thumbnail = media.getByRole('img');
  await expect(thumbnail).toHaveAttribute('alt', /^Image in the prompt \(image\/png, \d+ B\)$/);
  await expect.poll(() => thumbnail.evaluate((image) => (image as { naturalWidth: number }).naturalWidth)).toBe(32);
  await expect(card.getByTestId('countdown')).toBeVisible();
  await card.evaluate((element) => element.scrollIntoView({ block: 'start' }));
  await shootBoth(page, 'sampling-image', SHOTS);
  const before = fake.generations().length;
  await card.getByRole('button', { name: 'Allow once' }).click();
  await expect(view.pane.locator('[data-testid="server-request-card"][data-kind="sampling-answer"]')).toBeVisible();
  // The image went to the model as an image, not as words about it.
  const sent = JSON.stringify(fake.generations()[before]?.body);
  expect(sent).toContain('What is in this picture?');
  expect(sent).toContain('data:image/png;base64,iVBORw0KGgo');
  await fake.close();
});

test('a sandbox widening is a server request: its card says what it grants, and Allow grants exactly that', async ({
  page,
  workbench,
}) => {
  await page.goto(workbench.url);
  const asked = (await workbench.call('serverRequests.requestWidening', {
    name: 'Files',
    grant: { kind: 'read', path: '/opt/notes' },
  })) as { id: string; kind: string };
  expect(asked.kind).toBe('sandbox-widening');
  const tray = page.getByTestId('server-requests-tray');
  const card = tray.locator('[data-testid="server-request-card"][data-kind="sandbox-widening"]');
  await expect(card.getByRole('heading')).toHaveText("Widen Files's sandbox?");
  await expect(card).toContainText('Files may read /opt/notes (and everything in it)');
  await shootBoth(page, 'sandbox-widening', SHOTS);
  await card.getByRole('button', { name: 'Allow', exact: true }).click();
  await expect(tray).toHaveCount(0);
  const sandbox = (await workbench.call('mcp.sandbox', { name: 'Files' })) as { granted?: { read: string[] } };
  expect(sandbox.granted?.read).toEqual(['/opt/notes']);
});
