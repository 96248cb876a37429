import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { FinishReason, ModelInfo } from '../../shared/llm';
import type { WorkbenchError } from '../errors';
import type { GenerateEvent, ModelToolCall } from './conversation';
import {
  failureContexts,
  providerError,
  streamDroppedError,
  unreachableError,
  type FailureContext,
} from './llm-errors';
import { toOpenAiMessages, toOpenAiTools } from './openai-messages';
import type { LlmProvider } from './provider';
import { streamGeneration, type StreamTranslator } from './stream-generation';
import { parseToolArguments } from './tool-arguments';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiProviderOptions {
  /** `openai` talks to OpenAI itself; `openai-compatible` to any server that speaks the format (Ollama, vLLM…). */
  kind: 'openai' | 'openai-compatible';
  label: string;
  /** Optional for compatible servers that need none (Ollama, LM Studio). */
  apiKey?: string;
  /** Including the version path, as the servers document it: `http://localhost:11434/v1`. */
  baseURL?: string;
}

/** Model ids in OpenAI's list that cannot chat (embeddings, speech, images, moderation). */
const NOT_CHAT_MODELS = /embed|tts|whisper|dall-e|moderation|transcribe|realtime|audio|image|babbage|davinci/i;

/** OpenAI chat completions, streamed, through the official SDK; also every OpenAI-compatible server. */
export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const baseURL = options.baseURL ?? OPENAI_BASE_URL;
  // Retries are the person's decision (the error says when to retry), so the SDK makes none; the key goes
  // in explicitly so that the SDK never reads OPENAI_API_KEY or OPENAI_BASE_URL from the environment.
  const client = new OpenAI({ apiKey: options.apiKey ?? 'no-key', baseURL, maxRetries: 0 });
  const context = failureContexts(options.label, baseURL);

  return {
    kind: options.kind,
    generate(request, signal) {
      const body: ChatCompletionCreateParamsStreaming = {
        model: request.model,
        messages: toOpenAiMessages(request.system, request.messages),
        stream: true,
        stream_options: { include_usage: true },
        ...(request.tools.length === 0 ? {} : { tools: toOpenAiTools(request.tools) }),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        // OpenAI's newer models refuse max_tokens; compatible servers mostly know only max_tokens.
        ...(request.maxOutputTokens === undefined
          ? {}
          : options.kind === 'openai'
            ? { max_completion_tokens: request.maxOutputTokens }
            : { max_tokens: request.maxOutputTokens }),
      };
      return streamGeneration(openAiTranslator(client, body, context('generate', request.model)), signal);
    },
    async listModels(signal) {
      try {
        const models: ModelInfo[] = [];
        for await (const model of client.models.list({ signal })) {
          if (options.kind === 'openai' && NOT_CHAT_MODELS.test(model.id)) continue;
          models.push({ id: model.id });
        }
        return models.sort((a, b) => a.id.localeCompare(b.id));
      } catch (error) {
        throw mapOpenAiError(error, 'connect', context('listModels'));
      }
    },
  };
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

function openAiTranslator(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  context: FailureContext,
): StreamTranslator<ChatCompletionChunk> {
  // Fragments of each call accumulate by the index the server gives it; several calls may interleave.
  const calls = new Map<number, PartialCall>();
  let finishReason: string | undefined;
  let usage: GenerateEvent | undefined;
  return {
    open: (signal) => client.chat.completions.create(body, { signal }),
    *translate(chunk) {
      if (chunk.usage) {
        usage = {
          type: 'usage',
          usage: {
            inputTokens: chunk.usage.prompt_tokens,
            outputTokens: chunk.usage.completion_tokens,
            ...(chunk.usage.prompt_tokens_details?.cached_tokens
              ? { cachedInputTokens: chunk.usage.prompt_tokens_details.cached_tokens }
              : {}),
          },
        };
      }
      const choice = chunk.choices[0];
      if (!choice) return;
      const delta = choice.delta;
      if (delta?.content) yield { type: 'text', delta: delta.content };
      (delta?.tool_calls ?? []).forEach((fragment, position) => {
        const index = fragment.index ?? position;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id && !call.id) call.id = fragment.id;
        // The name comes whole in a call's first fragment (a few servers repeat it in every one).
        if (fragment.function?.name && !call.name) call.name = fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        calls.set(index, call);
      });
      if (choice.finish_reason) {
        finishReason = choice.finish_reason;
        yield* completeCalls(calls);
      }
    },
    close() {
      if (finishReason === undefined) return undefined;
      const reason = calls.size > 0 ? 'tool_calls' : openAiFinishReason(finishReason);
      return [...(usage ? [usage] : []), { type: 'finish', reason }];
    },
    mapError: (error, phase) => mapOpenAiError(error, phase, context),
    droppedError: () => streamDroppedError(context),
  };
}

function* completeCalls(calls: ReadonlyMap<number, PartialCall>): Generator<GenerateEvent> {
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
  for (const [index, call] of ordered) {
    const toolCall: ModelToolCall = {
      id: call.id || `call_${index}`,
      name: call.name,
      arguments: parseToolArguments(call.arguments),
    };
    yield { type: 'tool_call', call: toolCall };
  }
}

function openAiFinishReason(reason: string): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

function mapOpenAiError(error: unknown, phase: 'connect' | 'stream', context: FailureContext): WorkbenchError {
  if (error instanceof OpenAI.APIError && !(error instanceof OpenAI.APIConnectionError)) {
    // The body's `error` is an object on OpenAI and most servers, a bare string on a few.
    const body = error.error as { message?: unknown; code?: unknown; type?: unknown } | string | undefined;
    const providerMessage =
      typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : undefined;
    const providerCode =
      typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : undefined;
    return providerError(
      {
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.headers ? { headers: error.headers } : {}),
        ...(providerMessage === undefined ? {} : { providerMessage }),
        ...(providerCode === undefined ? {} : { providerCode }),
      },
      context,
    );
  }
  return phase === 'connect' ? unreachableError(error, context) : streamDroppedError(context, error);
}
