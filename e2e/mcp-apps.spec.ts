/**
 * MCP Apps in the chat (docs/user/mcp-apps.md), against the published example app server
 * @modelcontextprotocol/server-basic-vanillajs run for real over stdio: its tool's view renders in the tool block
 * through the ext-apps host bridge, on the app frame origin, and receives the tool's result.
 */
import path from 'node:path';
import type { FrameLocator, Page } from '@playwright/test';
import { chatUi, say, scriptedChat, shoot, shootBoth } from './chat-ui';
import { clockReady } from './apps-helpers';
import { ROOT, expect, test, type Workbench } from './fixtures';

test.describe.configure({ timeout: 90_000 });

/** The cards of the tool calls a view asked for: server requests of kind `app-tool-call`. */
const APP_CARD = '[data-testid="server-request-card"][data-kind="app-tool-call"]';

/** The view's own document: the inner frame inside the proxy frame of the tool block. */
function viewOf(page: Page): FrameLocator {
  return page.getByTestId('app-view').frameLocator('iframe').frameLocator('iframe');
}

test('the view renders in the tool block on another origin and receives the tool result', async ({
  page,
  workbench,
}) => {
  await clockReady(workbench);
  await workbench.call('policy.update', { tools: { Clock: { 'get-time': 'auto-approve' } } });
  const { fake } = await scriptedChat(workbench, 'Clock');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Here is the time.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'What time is it?');
  const chat = chatUi(page);
  await expect(chat.assistantMessages.last()).toContainText('Here is the time.');
  const frame = page.getByTestId('app-view').locator('iframe');
  await expect(frame).toBeVisible();
  const src = (await frame.getAttribute('src')) ?? '';
  expect(new URL(src).origin).not.toBe(new URL(workbench.url).origin);
  expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
  const view = viewOf(page);
  // The example shows the time the tool returned, once the host sent it the result.
  await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  await expect(view.locator('#get-time-btn')).toBeVisible();
  // Sized to its content: taller than the first guess, within the limit.
  await expect.poll(async () => (await frame.boundingBox())?.height ?? 0).toBeGreaterThan(150);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-60-app-view`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // ui/message lands in the message box, not sent.
  await view.locator('#send-message-btn').click();
  await expect(chat.input).toHaveValue('This is message text.');
  await expect(chat.userMessages).toHaveCount(1);
  // ui/open-link: the real host is shown and nothing opens until the person confirms; here they cancel.
  await view.locator('#open-link-btn').click();
  const dialog = page.getByRole('dialog', { name: 'Open a link on modelcontextprotocol.io?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('https://modelcontextprotocol.io/');
  await shoot(page, 'light-62-app-open-link');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toHaveCount(0);
  expect(page.context().pages()).toHaveLength(1);
  // The link refused in the page is an audit row like the host's own refusals.
  await expect
    .poll(async () =>
      (
        (await workbench.call('audit.query', { toolName: 'ui/open-link' })) as {
          entries: { decision: string; decidedBy: string }[];
        }
      ).entries.map((entry) => [entry.decision, entry.decidedBy]),
    )
    .toEqual([
      [
        'auto_deny',
        "refused in the view's frame (requested by the app of Clock (view ui://get-time/mcp-app.html), not by the model)",
      ],
    ]);

  // Another chat opened: the view's frame is dropped, its proxy frame kept blank (docs/dev/benchmarks.md); the chat
  // opened again: that proxy frame takes the view again, read and checked again, and it works as before.
  await frame.evaluate((element) => (element.dataset['shownBefore'] = 'yes'));
  await workbench.call('chat.create', { title: 'Other chat' });
  const chats = page.getByRole('navigation', { name: 'Chats' });
  await chats.getByRole('button', { name: 'Other chat', exact: true }).click();
  await expect(page.getByTestId('app-view')).toHaveCount(0);
  await expect.poll(() => page.frames().filter((inner) => inner.url() === 'about:srcdoc').length).toBe(0);
  await expect(page.locator('[data-parked-view-frames] iframe')).toHaveCount(1);
  await chats.getByRole('button', { name: 'Clock', exact: true }).click();
  await expect(frame).toHaveAttribute('data-shown-before', 'yes');
  await expect(page.locator('[data-parked-view-frames] iframe')).toHaveCount(0);
  await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  await chat.input.fill('');
  await view.locator('#send-message-btn').click();
  await expect(chat.input).toHaveValue('This is message text.');
});

/** Decision and result rows of the calls a view asked for (their ids start with `app:`). */
async function appRows(
  workbench: Workbench,
): Promise<{ kind: string; decision: string | null; actor: string | null; decidedBy: string | null }[]> {
  const page = (await workbench.call('audit.query', { toolName: 'get-time' })) as {
    entries: {
      sequence: number;
      kind: string;
      toolCallId: string;
      decision: string | null;
      actor: string | null;
      decidedBy: string | null;
    }[];
  };
  return page.entries
    .filter((entry) => entry.toolCallId.startsWith('app:'))
    .sort((a, b) => a.sequence - b.sequence)
    .map(({ kind, decision, actor, decidedBy }) => ({ kind, decision, actor, decidedBy }));
}

test('a call from the view shows its own card: allowed, the result returns to the view; denied, nothing runs', async ({
  page,
  workbench,
}) => {
  await clockReady(workbench);
  const { fake } = await scriptedChat(workbench, 'Clock asks');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Here is the time.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'What time is it?');
  const chat = chatUi(page);
  // The model's own call asks first, on the usual card.
  await chat.card('get-time').getByRole('button', { name: 'Allow once' }).click();
  const view = viewOf(page);
  const time = view.locator('#server-time');
  await expect(time).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  const first = (await time.textContent()) ?? '';

  // The view asks for the same tool: the same pipeline asks again, on a card that says who asked.
  await view.locator('#get-time-btn').click();
  const card = page.locator(APP_CARD);
  await expect(card).toBeVisible();
  await expect(card).toContainText('Requested by the app of Clock, not by the model.');
  await expect(card).toContainText('Run get-time from Clock?');
  await card.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-61-app-call-card`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // The same waiting request the inbox lists: a server request of kind app-tool-call.
  const listed = (await workbench.call('serverRequests.list', {})) as {
    requests: { kind: string; toolName?: string }[];
  };
  expect(listed.requests).toEqual([expect.objectContaining({ kind: 'app-tool-call', toolName: 'get-time' })]);
  await card.getByRole('button', { name: 'Allow once' }).click();
  await expect(card).toHaveCount(0);
  await expect(time).not.toHaveText(first, { timeout: 10_000 });
  await expect
    .poll(() => appRows(workbench))
    .toEqual([
      expect.objectContaining({ kind: 'decision', decision: 'allow_once', actor: 'user' }),
      expect.objectContaining({ kind: 'result' }),
    ]);
  expect((await appRows(workbench))[0]?.decidedBy).toContain(
    'requested by the app of Clock (view ui://get-time/mcp-app.html), not by the model',
  );

  // Denied: the view hears the refusal (the example shows "[ERROR]") and nothing ran (no second result row).
  await view.locator('#get-time-btn').click();
  await card.getByRole('button', { name: 'Deny' }).click();
  await expect(card).toHaveCount(0);
  await expect(time).toHaveText('[ERROR]');
  await expect.poll(async () => (await appRows(workbench)).length).toBe(3);
  const rows = await appRows(workbench);
  expect(rows[2]).toMatchObject({ kind: 'decision', decision: 'deny', actor: 'user' });
  expect(rows.filter((row) => row.kind === 'result')).toHaveLength(1);

  // In the one inbox like any waiting request, answered there: "Allow for this chat".
  await view.locator('#get-time-btn').click();
  await expect(card).toBeVisible();
  await page.getByTestId('open-inbox').click();
  const inbox = page.getByRole('dialog', { name: 'Waiting for you' });
  const item = inbox.getByRole('listitem', { name: 'Clock.get-time, requested by the app of Clock' });
  await expect(item).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-63-app-call-inbox`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await item.getByRole('button', { name: 'Allow for this chat' }).click();
  await expect(inbox.getByTestId('inbox-item')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(time).not.toHaveText('[ERROR]', { timeout: 10_000 });
  const grants = (await workbench.call('grants.list', {})) as { grants: { serverName: string; toolName: string }[] };
  expect(grants.grants).toEqual([expect.objectContaining({ serverName: 'Clock', toolName: 'app:get-time' })]);
  // The app's next call runs without a card: the chat grant decided it.
  const before = (await appRows(workbench)).length;
  await view.locator('#get-time-btn').click();
  await expect.poll(async () => (await appRows(workbench)).length).toBe(before + 2);
  expect((await appRows(workbench)).at(-2)).toMatchObject({ decision: 'session_grant', actor: 'policy' });
  await expect(card).toHaveCount(0);
});

const HOSTILE = path.join(ROOT, 'src/main/mcp/test-fixtures/hostile-app-server.ts');

test('a hostile view: each thing it may not do is refused, and the host-side refusals are recorded', async ({
  page,
  workbench,
}) => {
  await clockReady(workbench);
  await workbench.call('mcp.add', { name: 'Hostile', server: { command: process.execPath, args: [HOSTILE] } });
  await expect
    .poll(async () => ((await workbench.call('mcp.tools', { name: 'Hostile' })) as { tools: unknown[] }).tools.length, {
      timeout: 30_000,
    })
    .toBe(2);
  const { fake } = await scriptedChat(workbench, 'Hostile');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_h', name: 'Hostile__show', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Shown.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'Show it');
  await chatUi(page).card('show').getByRole('button', { name: 'Allow once' }).click();
  const view = viewOf(page);
  await expect(view.locator('#r-done')).toHaveText('done: yes', { timeout: 30_000 });
  await expect(view.locator('#r-other-server')).toContainText('refused: A view of "Hostile" may call only');
  await expect(view.locator('#r-model-only')).toContainText(
    'refused: The tool "model-only" of "Hostile" is for the model only',
  );
  await expect(view.locator('#r-js-link')).toContainText('refused: A view may open only http and https links');
  await expect(view.locator('#r-fetch')).toContainText('refused');
  await expect(view.locator('#r-csp-connect-src')).toHaveText('csp-connect-src: blocked');
  await expect(view.locator('#r-top')).toContainText('refused: SecurityError');
  await expect(view.locator('#r-storage')).toContainText('refused: SecurityError');
  await expect(view.locator('#r-cookie')).toContainText('refused: SecurityError');
  await expect(view.locator('#r-flood')).toHaveText('flood: 12 refused');
  // Eight wait on cards; the page never left.
  await expect(page.locator(APP_CARD)).toHaveCount(8);
  expect(new URL(page.url()).origin).toBe(workbench.origin);

  const entries = (
    (await workbench.call('audit.query', { kind: 'decision', decision: 'auto_deny' })) as {
      entries: { toolCallId: string; toolName: string; serverName: string; actor: string; decidedBy: string }[];
    }
  ).entries.filter((entry) => entry.toolCallId.startsWith('app:'));
  const refused = (tool: string): number => entries.filter((entry) => entry.toolName === tool).length;
  expect(refused('get-time')).toBe(1);
  expect(refused('model-only')).toBe(1);
  expect(refused('ui/open-link')).toBe(1);
  expect(refused('show')).toBe(12);
  // The fetch of an undeclared host the frame's policy blocked, as the browser reported it.
  await expect
    .poll(async () =>
      (
        (await workbench.call('audit.query', { toolName: 'csp', decision: 'auto_deny' })) as {
          entries: { toolCallId: string; args: { detail?: string } }[];
        }
      ).entries.map((entry) => entry.args.detail),
    )
    .toContain('connect-src blocked http://127.0.0.1:9/steal');
  for (const entry of entries) {
    expect(entry).toMatchObject({ serverName: 'Hostile', actor: 'system' });
    expect(entry.decidedBy).toContain('requested by the app of Hostile (view ui://hostile/view), not by the model');
  }
  // Nothing of what was refused ran: no result row for any call the view asked for.
  const results = (
    (await workbench.call('audit.query', { kind: 'result' })) as { entries: { toolCallId: string }[] }
  ).entries.filter((entry) => entry.toolCallId.startsWith('app:'));
  expect(results).toEqual([]);
});

test("a view shown in a pool frame looks as any view, and its frame's reports are recorded for it", async ({
  page,
  workbench,
}) => {
  await clockReady(workbench);
  await workbench.call('mcp.add', { name: 'Hostile', server: { command: process.execPath, args: [HOSTILE] } });
  await expect
    .poll(async () => ((await workbench.call('mcp.tools', { name: 'Hostile' })) as { tools: unknown[] }).tools.length, {
      timeout: 30_000,
    })
    .toBe(2);
  await workbench.call('policy.update', {
    tools: { Clock: { 'get-time': 'auto-approve' }, Hostile: { show: 'auto-approve' } },
  });
  const { fake } = await scriptedChat(workbench, 'Pooled');
  const call = (id: string, name: string) => ({
    kind: 'reply' as const,
    toolCalls: [{ id, name, argumentChunks: ['{}'] }],
  });
  fake.script(
    call('call_t1', 'Clock__get-time'),
    { kind: 'reply', text: ['First.'] },
    call('call_t2', 'Clock__get-time'),
    { kind: 'reply', text: ['Second.'] },
    call('call_h', 'Hostile__show'),
    { kind: 'reply', text: ['Third.'] },
  );
  await page.goto(workbench.url);
  // The newest view: the one of the call just made (the chat shows what its window holds).
  const frame = page.getByTestId('app-view').last().locator('iframe').first();
  const view = page.getByTestId('app-view').last().frameLocator('iframe').frameLocator('iframe');
  const address = async (): Promise<URLSearchParams> => new URL((await frame.getAttribute('src')) ?? '').searchParams;
  await say(page, 'What time is it?');
  await expect(view.locator('#get-time-btn')).toBeVisible({ timeout: 20_000 });
  const first = await address();
  // Once views are shown, blank proxy frames wait, loaded, for the next ones (docs/dev/benchmarks.md).
  const pool = page.locator('[data-view-frame-pool] iframe');
  await expect(pool).toHaveCount(2);

  await say(page, 'And now?');
  await expect(chatUi(page).assistantMessages.last()).toContainText('Second.');
  await expect(view.locator('#server-time')).not.toHaveText(/Loading|^$/, { timeout: 20_000 });
  await expect(view.locator('#get-time-btn')).toBeVisible();
  // Its proxy frame came from the pool: its address carries a slot id, not the chat and the call.
  const pooled = await address();
  expect(pooled.get('slot')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(pooled.get('chat')).toBeNull();
  expect(pooled.get('view')).toBeNull();
  // A frame serves one call's view: the first view's frame, pooled or not, is another.
  expect(first.get('slot')).not.toBe(pooled.get('slot'));
  expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-same-origin');
  await expect(frame).toHaveAttribute('title', 'View of Clock · get-time');
  await shootBoth(page, 'app-view-pooled');

  // The hostile view, shown in another pool frame: what its frame's policy blocked is recorded for it.
  await expect(pool).toHaveCount(2);
  await say(page, 'Show it');
  await expect(chatUi(page).assistantMessages.last()).toContainText('Third.');
  await expect(view.locator('#r-csp-connect-src')).toHaveText('csp-connect-src: blocked', { timeout: 30_000 });
  const hostile = await address();
  expect(hostile.get('slot')).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(hostile.get('slot')).not.toBe(pooled.get('slot'));
  await expect
    .poll(async () =>
      (
        (await workbench.call('audit.query', { toolName: 'csp', decision: 'auto_deny' })) as {
          entries: { serverName: string; args: { detail?: string } }[];
        }
      ).entries.map((entry) => [entry.serverName, entry.args.detail]),
    )
    .toContainEqual(['Hostile', 'connect-src blocked http://127.0.0.1:9/steal']);
});

test('a pool frame whose slot the main process will not bind to the view is dropped, and the view loads a frame of its own', async ({
  page,
  workbench,
}) => {
  await clockReady(workbench);
  await workbench.call('policy.update', { tools: { Clock: { 'get-time': 'auto-approve' } } });
  const { fake } = await scriptedChat(workbench, 'Refused slot');
  const call = (id: string) => ({
    kind: 'reply' as const,
    toolCalls: [{ id, name: 'Clock__get-time', argumentChunks: ['{}'] }],
  });
  fake.script(call('call_r1'), { kind: 'reply', text: ['First.'] }, call('call_r2'), {
    kind: 'reply',
    text: ['Second.'],
  });
  await page.goto(workbench.url);
  const frame = page.getByTestId('app-view').last().locator('iframe').first();
  const view = page.getByTestId('app-view').last().frameLocator('iframe').frameLocator('iframe');
  await say(page, 'What time is it?');
  await expect(view.locator('#get-time-btn')).toBeVisible({ timeout: 20_000 });
  const pool = page.locator('[data-view-frame-pool] iframe');
  await expect(pool).toHaveCount(2);
  // Every waiting frame's slot is taken first by another view: the page's binding for the next view is refused.
  for (const src of await pool.evaluateAll((frames) => frames.map((element) => element.getAttribute('src') ?? ''))) {
    const slot = new URL(src).searchParams.get('slot') as string;
    await workbench.call('apps.bindFrameSlot', { slot, chatId: 'elsewhere', viewCallId: 'call_elsewhere' });
  }
  await say(page, 'And now?');
  await expect(chatUi(page).assistantMessages.last()).toContainText('Second.');
  await expect(view.locator('#get-time-btn')).toBeVisible({ timeout: 20_000 });
  // The view runs in a frame whose address names it, not in the refused pool frame.
  const address = new URL((await frame.getAttribute('src')) ?? '').searchParams;
  expect(address.get('slot')).toBeNull();
  expect(address.get('view')).toBeTruthy();
  expect(address.get('chat')).toBeTruthy();
});

const VERSIONED = path.join(ROOT, 'src/main/mcp/test-fixtures/versioned-app-server.ts');

/** The versioned fixture as "Versioned", its view at `version` (and a declared domain from version 2), ready. */
async function versionedReady(workbench: Workbench, version: string): Promise<void> {
  const env =
    version === '1' ? { VIEW_VERSION: '1' } : { VIEW_VERSION: version, VIEW_CONNECT: 'https://api.example.com' };
  await workbench.call('mcp.add', { name: 'Versioned', server: { command: process.execPath, args: [VERSIONED], env } });
  await expect
    .poll(
      async () => ((await workbench.call('mcp.tools', { name: 'Versioned' })) as { tools: unknown[] }).tools.length,
      {
        timeout: 30_000,
      },
    )
    .toBe(1);
}

test('a view that changed since it was pinned is held back with what changed until the person shows it', async ({
  page,
  workbench,
}) => {
  await versionedReady(workbench, '1');
  const { fake } = await scriptedChat(workbench, 'Versioned');
  const show = (id: string) => ({
    kind: 'reply' as const,
    toolCalls: [{ id, name: 'Versioned__show', argumentChunks: ['{}'] }],
  });
  fake.script(show('call_v1'), { kind: 'reply', text: ['Shown.'] });
  await page.goto(workbench.url);
  await say(page, 'Show it');
  await chatUi(page).card('show').getByRole('button', { name: 'Allow once' }).click();
  await expect(viewOf(page).locator('#version')).toHaveText('version 1', { timeout: 30_000 });

  // The same server (what it runs is unchanged) comes back with another view that also declares a domain.
  await workbench.call('mcp.remove', { name: 'Versioned' });
  await versionedReady(workbench, '2');
  fake.script(show('call_v2'), { kind: 'reply', text: ['Shown again.'] });
  await say(page, 'Show it again');
  await chatUi(page).card('show').getByRole('button', { name: 'Allow once' }).click();
  // Every view of the server shows the notice now (a view is read again as its block mounts); the newest one is taken.
  const changed = page.getByRole('group', { name: 'Changed view' }).last();
  await expect(changed).toContainText('The view of Versioned changed', { timeout: 30_000 });
  await expect(changed).toContainText('api.example.com');
  await expect(page.getByTestId('app-view')).toHaveCount(0);
  await shootBoth(page, 'app-view-changed');
  const notices = await page.getByRole('group', { name: 'Changed view' }).count();
  await changed.getByRole('button', { name: 'Show the changed view' }).click();
  await expect(page.getByRole('group', { name: 'Changed view' })).toHaveCount(notices - 1);
  await expect(
    page.getByTestId('app-view').last().frameLocator('iframe').frameLocator('iframe').locator('#version'),
  ).toHaveText('version 2', {
    timeout: 30_000,
  });
  // Each view runs in a proxy frame whose address (hence its page's policy) carries the domains that view declares:
  // the frame loaded for the changed view while it was read, with the domains of the view shown before, was replaced.
  const declaredIn = async (index: number): Promise<unknown> => {
    const src = await page.getByTestId('app-view').nth(index).locator('iframe').getAttribute('src');
    return (JSON.parse(new URL(src ?? '').searchParams.get('csp') ?? 'null') as { connectDomains?: unknown })
      ?.connectDomains;
  };
  const views = await page.getByTestId('app-view').count();
  expect(await declaredIn(views - 1)).toEqual(['https://api.example.com']);
});
