/** Helpers for tests that drive a provider against the fake server. */
import { WorkbenchError } from '../../errors';
import { createAnthropicProvider } from '../anthropic-provider';
import type { GenerateEvent, GenerateRequest } from '../conversation';
import { createGeminiProvider } from '../gemini-provider';
import { createOpenAiProvider } from '../openai-provider';
import type { LlmProvider } from '../provider';
import type { FakeLlmServer, WireFormat } from './fake-llm-server';

export const FORMATS: readonly WireFormat[] = ['openai', 'anthropic', 'gemini'];
export const TEST_KEY = 'sk-test-key-0123456789';
export const LABELS: Record<WireFormat, string> = { openai: 'OpenAI', anthropic: 'Anthropic', gemini: 'Gemini' };

/** The adapter for a wire format, pointed at the fake server (or at `baseURL`). */
export function providerFor(
  format: WireFormat,
  server: FakeLlmServer | { baseURL: string },
  apiKey = TEST_KEY,
): LlmProvider {
  const baseURL =
    'baseURL' in server && typeof server.baseURL === 'string'
      ? server.baseURL
      : (server as FakeLlmServer).baseURL(format);
  const label = LABELS[format];
  switch (format) {
    case 'openai':
      return createOpenAiProvider({ kind: 'openai', label, apiKey, baseURL });
    case 'anthropic':
      return createAnthropicProvider({ label, apiKey, baseURL });
    case 'gemini':
      return createGeminiProvider({ label, apiKey, baseURL });
  }
}

export interface Collected {
  events: GenerateEvent[];
  error?: WorkbenchError;
}

/** Drains a generation: every event, and the error it ended with (anything but a WorkbenchError fails the test). */
export async function collect(stream: AsyncIterable<GenerateEvent>): Promise<Collected> {
  const events: GenerateEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    if (!(error instanceof WorkbenchError)) throw error;
    return { events, error };
  }
}

export function userText(text: string, model = 'fake-large'): GenerateRequest {
  return { model, messages: [{ role: 'user', content: [{ type: 'text', text }] }], tools: [] };
}

export function textOf(events: readonly GenerateEvent[]): string {
  return events.map((event) => (event.type === 'text' ? event.delta : '')).join('');
}

/** How many SSE events a reply's stream has sent once its `n`th text delta is out (the events before text differ by format). */
export function eventsThroughText(format: WireFormat, n: number): number {
  // OpenAI: the role chunk; Anthropic: message_start, content_block_start and a ping; Gemini: nothing.
  const before = { openai: 1, anthropic: 3, gemini: 0 }[format];
  return before + n;
}
