import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServerRequests } from '../../src/main/chat/server-request-flow.ts';
import type { ServerRequestRecorder } from '../../src/main/audit/audit-log.ts';
import type { GenerateEvent, GenerateRequest, LlmProvider } from '../../src/main/llm/provider.ts';
import { createServices } from '../../src/main/services.ts';
import type { Benchmark } from './harness.ts';
import { median } from './mcp-setup.ts';

const WARMUP = Number(process.env.SAMPLING_WARMUP ?? 100);
const SAMPLES = Number(process.env.SAMPLING_SAMPLES ?? 600);

/** A provider that costs nothing: whatever the bench measures beyond it is the approval path's own work. */
const instant: LlmProvider = {
  kind: 'demo',
  async *generate(): AsyncGenerator<GenerateEvent> {
    yield { type: 'text', delta: 'sampled' };
    yield { type: 'usage', usage: { inputTokens: 5, outputTokens: 1 } };
    yield { type: 'finish', reason: 'stop' };
  },
  listModels: async () => [],
};

const PARAMS = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Summarise the benchmark.' } }],
  systemPrompt: 'You are a helpful test server.',
  maxTokens: 100,
};

/**
 * What a server's sampling request costs through the approval path with auto-allow (the server's setting
 * `sampling: allow`; docs/user/server-requests.md): the policy (deny rules, setting, budget), the two audit rows
 * committed durably (the request and its answer) and the bookkeeping, beyond the same provider call made directly.
 * The MCP transport is the same either way and is not part of it. The commits' own time is in the details.
 */
export const samplingOverhead: Benchmark = {
  name: 'sampling-overhead',
  description:
    'median time a sampling request auto-allowed by the server setting adds through the approval path (policy, budget, two durable audit rows) beyond the same provider call made directly',
  async run() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-bench-sampling-'));
    const services = createServices({ dataDir, host: 'cli', version: 'bench', managedPolicyFile: null });
    let commitMs = 0;
    const audit: ServerRequestRecorder = {
      recordServerRequest: (record) => {
        const start = performance.now();
        try {
          return services.audit.recordServerRequest(record);
        } finally {
          commitMs += performance.now() - start;
        }
      },
    };
    try {
      services.approvals.policy.update({ servers: { Bench: { sampling: 'allow', samplingTokenBudget: 10_000_000 } } });
      const requests = createServerRequests({
        audit,
        waits: services.approvals.pending.serverRequests,
        policy: () => services.approvals.policy.compiled(),
        modelFor: () => ({ providerId: 'demo', model: 'bench' }),
        provider: () => instant,
      });
      const signal = new AbortController().signal;
      const chatId = services.chats.create({ providerId: 'demo' }).id;
      const viaApproval = async (): Promise<number> => {
        const start = performance.now();
        const result = await requests.sample({ serverName: 'Bench', chatId, signal }, PARAMS);
        if (result.content.type !== 'text' || result.content.text !== 'sampled')
          throw new Error('The sampling request did not come back with the answer.');
        return performance.now() - start;
      };
      const direct = async (): Promise<number> => {
        const start = performance.now();
        let text = '';
        const request: GenerateRequest = {
          model: 'bench',
          system: PARAMS.systemPrompt,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise the benchmark.' }] }],
          tools: [],
          maxOutputTokens: 100,
        };
        for await (const event of instant.generate(request, signal)) if (event.type === 'text') text += event.delta;
        if (text !== 'sampled') throw new Error('The provider did not answer.');
        return performance.now() - start;
      };
      const through: number[] = [];
      const straight: number[] = [];
      const commits: number[] = [];
      for (let index = 0; index < WARMUP + SAMPLES; index++) {
        commitMs = 0;
        const first = index % 2 === 0;
        const a = first ? await viaApproval() : await direct();
        const b = first ? await direct() : await viaApproval();
        if (index < WARMUP) continue;
        through.push(first ? a : b);
        straight.push(first ? b : a);
        commits.push(commitMs);
      }
      // Like loop-overhead: the path's own work (the durable commits' fsync taken out, measured by audit-commit),
      // and the whole of it with the two commits.
      const ownWork = through.map((time, index) => Math.max(0, time - (commits[index] ?? 0) - (straight[index] ?? 0)));
      const added = through.map((time, index) => Math.max(0, time - (straight[index] ?? 0)));
      const details = {
        throughApprovalMedianMs: median(through),
        directMedianMs: median(straight),
        durableCommitsMedianMs: median(commits),
        samples: SAMPLES,
      };
      return [
        { name: 'sampling-overhead', value: median(ownWork), unit: 'ms', goal: { op: '<=', value: 2 }, details },
        {
          name: 'sampling-overhead-with-audit-commits',
          value: median(added),
          unit: 'ms',
          goal: { op: '<=', value: 5 },
          details,
        },
      ];
    } finally {
      await services.conversations.dispose();
      services.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
