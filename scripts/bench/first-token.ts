import OpenAI from 'openai';
import type { GenerateRequest } from '../../src/main/llm/conversation.ts';
import { createOpenAiProvider } from '../../src/main/llm/openai-provider.ts';
import { startFakeLlmServer } from '../../src/main/llm/testing/fake-llm-server.ts';
import { percentile, type Benchmark } from './harness.ts';

const WARMUP = 200;
const SAMPLES = 1500;
const KEY = 'sk-bench';
const MODEL = 'fake-large';
const PROMPT = 'Say hello.';

/**
 * Time to the first streamed token through our OpenAI adapter (`LlmProvider.generate`: message conversion, the
 * stream guard, chunk translation) against the raw `openai` SDK stream of the same request from the same fake
 * server. The two alternate, and which goes first alternates too, so machine noise hits both alike. Each stream is
 * read to its end, so that both leave the connection in the keep-alive pool the same way.
 */
export const firstToken: Benchmark = {
  name: 'first-token',
  description: 'p50 time to the first streamed token through the OpenAI adapter minus the raw openai SDK stream, same fake server',
  async run() {
    const server = await startFakeLlmServer({ apiKey: KEY });
    const baseURL = server.baseURL('openai');
    const raw = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
    const provider = createOpenAiProvider({ kind: 'openai', label: 'OpenAI', apiKey: KEY, baseURL });
    const request: GenerateRequest = { model: MODEL, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }] };
    const reply = { kind: 'reply' as const, text: ['Hello', ', world', '!'] };

    const viaAdapter = async (): Promise<number> => {
      server.script(reply);
      const start = performance.now();
      let first = Number.NaN;
      for await (const event of provider.generate(request)) {
        if (event.type === 'text' && Number.isNaN(first)) first = performance.now() - start;
      }
      return first;
    };
    const viaSdk = async (): Promise<number> => {
      server.script(reply);
      const start = performance.now();
      let first = Number.NaN;
      const stream = await raw.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta?.content && Number.isNaN(first)) first = performance.now() - start;
      }
      return first;
    };

    try {
      const adapterTimes: number[] = [];
      const sdkTimes: number[] = [];
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        let adapter: number;
        let sdk: number;
        if (i % 2 === 0) {
          adapter = await viaAdapter();
          sdk = await viaSdk();
        } else {
          sdk = await viaSdk();
          adapter = await viaAdapter();
        }
        if (Number.isNaN(adapter) || Number.isNaN(sdk)) throw new Error('A stream ended without a token.');
        if (i >= WARMUP) {
          adapterTimes.push(adapter);
          sdkTimes.push(sdk);
        }
      }
      const adapterP50 = percentile(adapterTimes, 50);
      const sdkP50 = percentile(sdkTimes, 50);
      return {
        value: adapterP50 - sdkP50,
        unit: 'ms',
        goal: { op: '<=', value: 5 },
        details: {
          adapterP50Ms: adapterP50,
          sdkP50Ms: sdkP50,
          adapterP99Ms: percentile(adapterTimes, 99),
          sdkP99Ms: percentile(sdkTimes, 99),
          samples: SAMPLES,
        },
      };
    } finally {
      await server.close();
    }
  },
};
