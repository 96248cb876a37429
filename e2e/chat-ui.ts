/** Locators and helpers for the chat view: messages, tool call blocks, approval cards, the composer. */
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { startFakeLlmServer, type FakeLlmServer } from '../src/main/llm/testing/fake-llm-server';
import { checkAccessibility } from './axe';
import { ROOT, expect, type Workbench } from './fixtures';

export const SCREENS = path.join(ROOT, 'test-results', 'screens');

export { APPROVAL_WARNING as WARNING_TEXT } from '../src/shared/decisions';

export function chatUi(page: Page) {
  const pane = page.getByRole('main');
  const cards = pane.getByTestId('approval-card');
  return {
    pane,
    input: pane.getByRole('textbox', { name: 'Message' }),
    send: pane.getByRole('button', { name: 'Send' }),
    stop: pane.getByRole('button', { name: 'Stop' }),
    userMessages: pane.getByTestId('user-message'),
    assistantMessages: pane.getByTestId('assistant-message'),
    toolCalls: pane.getByTestId('tool-call'),
    cards,
    /** The approval card of a tool. */
    card: (tool: string): Locator => cards.filter({ hasText: `Run ${tool} from` }),
    allowAll: pane.getByRole('button', { name: 'Allow all once' }),
    denyAll: pane.getByRole('button', { name: 'Deny all' }),
    announcer: page.getByTestId('approval-announcer'),
    errors: pane.getByTestId('error-notice'),
    tabs: page.getByRole('tablist', { name: 'Open chats' }).getByRole('tab'),
    providerPicker: pane.getByRole('combobox', { name: 'Provider' }),
    modelPicker: pane.getByRole('combobox', { name: 'Model' }),
    modePicker: pane.getByRole('combobox', { name: 'Approval mode' }),
  };
}

/** Types a message and sends it with Enter. */
export async function say(page: Page, text: string): Promise<void> {
  const view = chatUi(page);
  await expect(view.input).toBeEnabled();
  await view.input.fill(text);
  await view.input.press('Enter');
}

/** A screenshot for review; the screen is checked with axe too (e2e/axe.ts). */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(2, 2);
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

/** The same screen in light and dark, each checked with axe (e2e/axe.ts); the page is left light. */
export async function shootBoth(page: Page, name: string, folder = SCREENS): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.mouse.move(2, 2);
    await page.screenshot({ path: path.join(folder, `${name}-${scheme}.png`), animations: 'disabled', caret: 'hide' });
    await checkAccessibility(page, `${name}-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The fake LLM server (OpenAI wire format) as a provider named "Scripted", and a chat that uses it. */
export async function scriptedChat(
  workbench: Pick<Workbench, 'call'>,
  title = 'Scripted chat',
): Promise<{ fake: FakeLlmServer; chatId: string }> {
  const fake = await startFakeLlmServer();
  await workbench.call('providers.add', {
    kind: 'openai',
    id: 'scripted',
    label: 'Scripted',
    baseURL: fake.baseURL('openai'),
    apiKey: 'sk-test-key-0123456789',
    defaultModel: 'fake-large',
  });
  const chat = (await workbench.call('chat.create', { title, providerId: 'scripted', model: 'fake-large' })) as {
    id: string;
  };
  return { fake, chatId: chat.id };
}

/** Waits until the Files server offers its tools (it starts in the background with browser mode). */
export async function filesReady(workbench: Workbench): Promise<void> {
  await expect
    .poll(async () => ((await workbench.call('mcp.tools', { name: 'Files' })) as { tools: unknown[] }).tools.length, {
      timeout: 20_000,
    })
    .toBeGreaterThan(0);
}

/** A Files tool call the fake model makes. */
export function filesCall(
  tool: string,
  args: Record<string, unknown>,
  id: string,
): { id: string; name: string; argumentChunks: string[] } {
  return { id, name: `Files__${tool}`, argumentChunks: [JSON.stringify(args)] };
}
