import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerateEvent } from './conversation';
import { planDemoReply } from './demo-commands';
import { isAbortError } from './llm-errors';
import type { LlmProvider } from './provider';

export const DEMO_MODEL_ID = 'demo';

export interface DemoProviderOptions {
  /** Pause between text deltas, so the reply streams as a model's would. Tests pass 0. */
  chunkDelayMs?: number;
}

/**
 * The offline Demo provider: not an AI model. It speaks the same streaming events as the real adapters
 * (text in deltas, complete tool calls, one finish), so the tool loop cannot tell it apart; see demo-commands.ts
 * for what it answers and what it assumes.
 */
export function createDemoProvider(options: DemoProviderOptions = {}): LlmProvider {
  const delay = options.chunkDelayMs ?? 15;
  return {
    kind: 'demo',
    async *generate(request, signal): AsyncGenerator<GenerateEvent> {
      const plan = planDemoReply(request);
      try {
        let first = true;
        for (const delta of textChunks(plan.text)) {
          // Paced between deltas, not before the first: the Demo has no network to wait for. It yields to the event
          // loop before each delta even without a delay, so an abort is seen.
          if (delay > 0 && !first) await sleep(delay, undefined, { signal });
          else await sleep(0, undefined, { signal });
          first = false;
          yield { type: 'text', delta };
        }
      } catch (error) {
        if (!isAbortError(error)) throw error;
      }
      if (signal?.aborted) {
        yield { type: 'finish', reason: 'aborted' };
        return;
      }
      for (const call of plan.toolCalls) {
        yield {
          type: 'tool_call',
          call: { id: `demo-${randomUUID()}`, name: call.name, arguments: { kind: 'parsed', value: call.args } },
        };
      }
      yield { type: 'finish', reason: plan.toolCalls.length > 0 ? 'tool_calls' : 'stop' };
    },
    listModels: async () => [{ id: DEMO_MODEL_ID, label: 'Demo (scripted, not an AI model)' }],
  };
}

/** The text in deltas of a few words each, whitespace kept, so joining them gives the text back. */
export function textChunks(text: string, wordsPerChunk = 3): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const chunks: string[] = [];
  for (let index = 0; index < words.length; index += wordsPerChunk)
    chunks.push(words.slice(index, index + wordsPerChunk).join(''));
  return chunks;
}
