import Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { FinishReason, ModelInfo } from '../../shared/llm';
import type { WorkbenchError } from '../errors';
import { modelInfo } from './adapter-helpers';
import { toAnthropicMessages, toAnthropicTools } from './anthropic-messages';
import type { GenerateEvent } from './conversation';
import {
  failureContexts,
  providerError,
  streamDroppedError,
  unreachableError,
  type FailureContext,
} from './llm-errors';
import type { LlmProvider } from './provider';
import { streamGeneration, type StreamTranslator } from './stream-generation';
import { parseToolArguments } from './tool-arguments';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The API requires a limit; every Claude model since 3.5 can write this much. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export interface AnthropicProviderOptions {
  label: string;
  apiKey?: string;
  /** The origin, without `/v1`: the SDK adds it. */
  baseURL?: string;
}

/** Anthropic messages, streamed, through the official SDK. */
export function createAnthropicProvider(options: AnthropicProviderOptions): LlmProvider {
  const baseURL = options.baseURL ?? ANTHROPIC_BASE_URL;
  // An explicit key and base URL keep the SDK from reading ANTHROPIC_* variables or credential files.
  const client = new Anthropic({ apiKey: options.apiKey ?? '', baseURL, maxRetries: 0 });
  const context = failureContexts(options.label, baseURL);

  return {
    kind: 'anthropic',
    generate(request, signal) {
      const body: MessageCreateParamsStreaming = {
        model: request.model,
        max_tokens: request.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
        messages: toAnthropicMessages(request.messages),
        stream: true,
        ...(request.system ? { system: request.system } : {}),
        ...(request.tools.length === 0 ? {} : { tools: toAnthropicTools(request.tools) }),
      };
      return streamGeneration(anthropicTranslator(client, body, context('generate', request.model)), signal);
    },
    async listModels(signal) {
      try {
        const models: ModelInfo[] = [];
        for await (const model of client.models.list({}, { signal })) {
          models.push(modelInfo(model.id, model.display_name, model.max_input_tokens, model.max_tokens));
        }
        return models;
      } catch (error) {
        throw mapAnthropicError(error, 'connect', context('listModels'));
      }
    },
  };
}

function anthropicTranslator(
  client: Anthropic,
  body: MessageCreateParamsStreaming,
  context: FailureContext,
): StreamTranslator<RawMessageStreamEvent> {
  const toolBlocks = new Map<number, { id: string; name: string; json: string }>();
  let inputTokens = 0;
  let cachedInputTokens = 0;
  let outputTokens = 0;
  let stopReason: string | null = null;
  let stopped = false;
  let sawToolCall = false;
  return {
    open: (signal) => client.messages.create(body, { signal }),
    *translate(event) {
      switch (event.type) {
        case 'message_start':
          inputTokens = event.message.usage.input_tokens;
          cachedInputTokens = event.message.usage.cache_read_input_tokens ?? 0;
          outputTokens = event.message.usage.output_tokens;
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') {
            toolBlocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
          } else if (event.content_block.type === 'text' && event.content_block.text) {
            yield { type: 'text', delta: event.content_block.text };
          }
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') yield { type: 'text', delta: event.delta.text };
          else if (event.delta.type === 'input_json_delta') {
            const block = toolBlocks.get(event.index);
            if (block) block.json += event.delta.partial_json;
          }
          break;
        case 'content_block_stop': {
          const block = toolBlocks.get(event.index);
          if (block) {
            toolBlocks.delete(event.index);
            sawToolCall = true;
            yield {
              type: 'tool_call',
              call: { id: block.id, name: block.name, arguments: parseToolArguments(block.json) },
            };
          }
          break;
        }
        case 'message_delta':
          stopReason = event.delta.stop_reason ?? stopReason;
          outputTokens = event.usage.output_tokens ?? outputTokens;
          break;
        case 'message_stop':
          stopped = true;
          break;
      }
    },
    close() {
      if (!stopped) return undefined;
      const usage: GenerateEvent = {
        type: 'usage',
        usage: { inputTokens, outputTokens, ...(cachedInputTokens > 0 ? { cachedInputTokens } : {}) },
      };
      return [usage, { type: 'finish', reason: sawToolCall ? 'tool_calls' : anthropicFinishReason(stopReason) }];
    },
    mapError: (error, phase) => mapAnthropicError(error, phase, context),
    droppedError: () => streamDroppedError(context),
  };
}

function anthropicFinishReason(reason: string | null): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}

function mapAnthropicError(error: unknown, phase: 'connect' | 'stream', context: FailureContext): WorkbenchError {
  if (error instanceof Anthropic.APIError && !(error instanceof Anthropic.APIConnectionError)) {
    return providerError(
      {
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.headers ? { headers: error.headers } : {}),
        ...(error.apiMessage ? { providerMessage: error.apiMessage } : {}),
        ...(error.type ? { providerCode: error.type } : {}),
      },
      context,
    );
  }
  return phase === 'connect' ? unreachableError(error, context) : streamDroppedError(context, error);
}
