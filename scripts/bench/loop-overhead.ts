import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createExchangeCoordinator } from '../../src/main/chat/exchange-coordinator.ts';
import { createMessageStore } from '../../src/main/chat/message-store.ts';
import { createToolLoop } from '../../src/main/chat/tool-loop.ts';
import type { AuditRecorder } from '../../src/main/audit/audit-log.ts';
import type { GenerateEvent, LlmProvider } from '../../src/main/llm/provider.ts';
import type { ChatStreamEvent } from '../../src/shared/messages.ts';
import { createServices } from '../../src/main/services.ts';
import { openDatabase } from '../../src/main/storage/database.ts';
import type { Benchmark } from './harness.ts';
import { median } from './mcp-setup.ts';

const WARMUP = Number(process.env.LOOP_WARMUP ?? 100);
const SAMPLES = Number(process.env.LOOP_SAMPLES ?? 600);
const ARGS = { message: 'hello from the benchmark' };

/**
 * An in-process provider that costs nothing. Asked to `echo`, it calls `everything.echo` once, then answers in
 * words; asked anything else, it answers at once. What is left of an exchange is the loop's own work (history, the
 * decision, two audit rows committed durably, message bookkeeping, events) plus the MCP call itself.
 */
const scripted: LlmProvider = {
  kind: 'demo',
  async *generate(request): AsyncGenerator<GenerateEvent> {
    const last = request.messages.at(-1);
    const asked =
      last?.role === 'user' ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '';
    if (last?.role === 'tool' || asked !== 'echo') {
      yield { type: 'text', delta: 'done' };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    yield {
      type: 'tool_call',
      call: { id: 'call_1', name: 'everything__echo', arguments: { kind: 'parsed', value: ARGS } },
    };
    yield { type: 'finish', reason: 'tool_calls' };
  },
  listModels: async () => [],
};

/**
 * What an auto-allowed `echo` of the real server-everything adds to an exchange through the whole loop (its
 * decision, audit rows, persistence, events, the model round that reads its result) beyond the same call made
 * straight through the MCP host: an exchange with the call, minus the same exchange without it, minus the host
 * call, measured together in rotating order. The exchange's own costs (storing the message, the chat's activity)
 * are in both and cancel out; its medians are in the details.
 */
export const loopOverhead: Benchmark = {
  name: 'loop-overhead',
  description:
    'median time an auto-allowed tool call adds to an exchange through the whole tool loop beyond the raw MCP host call (server-everything echo), without and with the durable audit commits',
  async run() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-loop-'));
    // Time spent inside the audit log's durable commits (synchronous=FULL, required by the audit log issue and
    // measured by audit-commit), so that the loop's own work can be told apart from the disk's fsync.
    const log: { real?: AuditRecorder } = {};
    let commitMs = 0;
    const timed = <T>(work: () => T): T => {
      const start = performance.now();
      try {
        return work();
      } finally {
        commitMs += performance.now() - start;
      }
    };
    const audit: AuditRecorder = {
      recordDecision: (record) => timed(() => (log.real as AuditRecorder).recordDecision(record)),
      recordDecisionsWith: (records, claim, changes) =>
        timed(() => (log.real as AuditRecorder).recordDecisionsWith(records, claim, changes)),
      recordPolicyChange: (record) => timed(() => (log.real as AuditRecorder).recordPolicyChange(record)),
      recordToolResult: (record) => timed(() => (log.real as AuditRecorder).recordToolResult(record)),
      recordTask: (record) => timed(() => (log.real as AuditRecorder).recordTask(record)),
    };
    const services = createServices({ dataDir, host: 'cli', version: 'bench', managedPolicyFile: null, audit });
    log.real = services.audit;
    const db = openDatabase(services.databaseFile);
    try {
      services.mcpServers.remove('Files');
      services.mcpServers.add('everything', { package: '@modelcontextprotocol/server-everything' });
      services.approvals.policy.update({ tools: { everything: { echo: 'auto-approve' } } });
      services.mcp.start();
      for (const deadline = Date.now() + 60_000; ;) {
        const { state, toolCount } = services.mcp.server('everything').status;
        if (state === 'ready' && toolCount > 0) break;
        if (Date.now() > deadline) throw new Error(`server-everything did not become ready (${state})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const messages = createMessageStore(db);
      const loop = createToolLoop({
        messages,
        provider: () => scripted,
        gate: services.approvals.gate,
        pending: services.approvals.pending,
        tools: services.mcp,
        audit,
        maxToolRounds: () => 20,
        now: Date.now,
        onError: (error) => console.error(error),
      });
      const conversations = createExchangeCoordinator({
        chats: services.chats,
        messages,
        loop,
        pending: services.approvals.pending,
        events: services.events,
      });

      // The exchange is done when the chat announces it is idle again: what the UI waits for.
      const idle = new Map<string, () => void>();
      services.events.subscribe((event, payload) => {
        const stream = payload as ChatStreamEvent;
        if (event === 'chat.onDidStream' && stream.kind === 'activity' && stream.activity.status === 'idle')
          idle.get(stream.chatId)?.();
      });
      const commits: number[] = [];
      /** One exchange in a new chat (so that the history it sends stays the same size), to its idle announcement. */
      const viaLoop = async (text: 'echo' | 'hello'): Promise<number> => {
        const chat = services.chats.create({ providerId: 'demo' });
        const done = new Promise<void>((resolve) => idle.set(chat.id, resolve));
        commitMs = 0;
        const start = performance.now();
        conversations.send(chat.id, { role: 'user', text });
        await done;
        const time = performance.now() - start;
        idle.delete(chat.id);
        await conversations.settled(chat.id);
        if (text === 'echo') commits.push(commitMs);
        const last = conversations.messages(chat.id).messages.at(-1);
        if (last?.role !== 'assistant' || last.reply.turns.at(-1)?.message !== 'done')
          throw new Error('The exchange did not end with the answer.');
        return time;
      };
      const viaHost = async (): Promise<number> => {
        const start = performance.now();
        const result = await services.mcp.callTool({ serverName: 'everything', toolName: 'echo', args: ARGS });
        if (result.isError) throw new Error('echo failed');
        return performance.now() - start;
      };
      // Three ways, in a rotating order so that machine noise hits each alike: an exchange with the tool call, the
      // same exchange without it (the model answers at once), and the call straight through the MCP host.
      const ways = [() => viaLoop('echo'), () => viaLoop('hello'), viaHost];
      const withCall: number[] = [];
      const withoutCall: number[] = [];
      const hostTimes: number[] = [];
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        const times: number[] = [];
        for (let step = 0; step < 3; step++) {
          const way = (index + step) % 3;
          times[way] = await (ways[way] as () => Promise<number>)();
        }
        if (index < WARMUP) {
          commits.length = 0;
          continue;
        }
        withCall.push(times[0] as number);
        withoutCall.push(times[1] as number);
        hostTimes.push(times[2] as number);
      }
      // What the tool call adds to an exchange beyond the MCP call itself: its decision, its audit rows, running it
      // through the loop, its record in the reply, and the model round that reads its result.
      const added = withCall.map((time, index) => time - (withoutCall[index] as number) - (hostTimes[index] as number));
      const ownWork = added.map((time, index) => time - (commits[index] as number));
      const details = {
        exchangeWithCallMedianMs: median(withCall),
        exchangeWithoutCallMedianMs: median(withoutCall),
        hostCallMedianMs: median(hostTimes),
        auditCommitsMedianMs: median(commits),
        samples: SAMPLES,
      };
      return [
        // The loop's own work for a call: decision, bookkeeping, persistence, events (the 1 ms).
        { name: 'loop-overhead', value: median(ownWork), unit: 'ms', goal: { op: '<=', value: 1 }, details },
        // With the two durable audit commits (decision before the call, result after), against seed 002's 5 ms budget.
        {
          name: 'loop-overhead-with-audit-commits',
          value: median(added),
          unit: 'ms',
          goal: { op: '<=', value: 5 },
          details,
        },
      ];
    } finally {
      db.close();
      await services.conversations.dispose();
      await services.mcp.stop();
      services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
