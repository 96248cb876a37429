/** A whole workbench for tool loop tests: real services and SQLite, the real Files server, the fake LLM server. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolCallApproval } from '../../../shared/approval';
import type { ChatActivity, ChatMessage, ChatStreamEvent, ToolCallRecord } from '../../../shared/messages';
import type { AuditEntry } from '../../../shared/audit';
import { startFakeLlmServer, type FakeLlmServer, type WireFormat } from '../../llm/testing/fake-llm-server';
import { TEST_KEY } from '../../llm/testing/drive';
import { sandboxDir } from '../../settings/default-servers';
import { createServices, type Services, type ServicesOptions } from '../../services';

export interface LoopHarness {
  readonly dataDir: string;
  readonly sandbox: string;
  readonly fake: FakeLlmServer;
  services: Services;
  chatId: string;
  /** Every chat.onDidStream event, in order. */
  readonly streamed: ChatStreamEvent[];
  /** Sends a user message and waits until the chat is idle or waits for a person. */
  say(text: string): Promise<ChatActivity>;
  /** Sends the approval message and waits as `say` does. */
  decide(approvals: ToolCallApproval[]): Promise<ChatActivity>;
  messages(): ChatMessage[];
  /** Every tool call record of the chat, in order. */
  calls(): ToolCallRecord[];
  audit(): AuditEntry[];
  /**
   * Closes the services and opens new ones on the same data folder: a restart. With `waitForServers: false` it
   * returns while the Files server is still starting, as the app does.
   */
  restart(options?: { waitForServers?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/** The name a model sees for a Files tool. */
export const files = (tool: string): string => `Files__${tool}`;

export async function startLoopHarness(
  format: WireFormat,
  options: Partial<ServicesOptions> = {},
): Promise<LoopHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-loop-'));
  const fake = await startFakeLlmServer();
  const streamed: ChatStreamEvent[] = [];
  const open = async (waitForServers = true): Promise<Services> => {
    const services = createServices({
      dataDir,
      host: 'cli',
      version: '0.0.0-test',
      managedPolicyFile: null,
      ...options,
    });
    services.events.subscribe((event, payload) => {
      if (event === 'chat.onDidStream') streamed.push(payload as ChatStreamEvent);
    });
    services.mcp.start();
    if (waitForServers) await waitUntilReady(services);
    return services;
  };
  const services = await open();
  services.providers.add({
    kind: format,
    id: 'fake',
    label: `Fake ${format}`,
    baseURL: fake.baseURL(format),
    apiKey: TEST_KEY,
    defaultModel: 'fake-large',
  });
  const harness: LoopHarness = {
    dataDir,
    sandbox: sandboxDir(dataDir),
    fake,
    services,
    chatId: services.chats.create({ providerId: 'fake' }).id,
    streamed,
    async say(text) {
      harness.services.conversations.send(harness.chatId, { role: 'user', text });
      return harness.services.conversations.settled(harness.chatId);
    },
    async decide(toolCallApprovals) {
      harness.services.conversations.send(harness.chatId, { role: 'approval', toolCallApprovals });
      return harness.services.conversations.settled(harness.chatId);
    },
    messages: () => harness.services.conversations.messages(harness.chatId).messages,
    calls: () =>
      harness
        .messages()
        .flatMap((message) =>
          message.role === 'assistant' ? message.reply.turns.flatMap((turn) => turn.toolCalls ?? []) : [],
        ),
    audit: () => harness.services.audit.query({ chatId: harness.chatId, limit: 500 }).entries.slice().reverse(),
    async restart({ waitForServers = true } = {}) {
      await shutDown(harness.services);
      harness.services = await open(waitForServers);
    },
    async close() {
      await shutDown(harness.services);
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

async function shutDown(services: Services): Promise<void> {
  await services.conversations.dispose();
  await services.mcp.stop();
  services.close();
}

async function waitUntilReady(services: Services, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // 'ready' is announced before the tool list arrives.
    const { state, toolCount } = services.mcp.server('Files').status;
    if (state === 'ready' && toolCount > 0) return;
    if (Date.now() > deadline) throw new Error(`The Files server did not become ready (state: ${state}).`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The fake tool call of a Files tool with these arguments. */
export function callOf(
  tool: string,
  args: Record<string, unknown>,
  id?: string,
): { id?: string; name: string; argumentChunks: string[] } {
  return { ...(id === undefined ? {} : { id }), name: files(tool), argumentChunks: [JSON.stringify(args)] };
}
