import { randomUUID } from 'node:crypto';
import {
  ApiError,
  FinishReason as GeminiFinish,
  GoogleGenAI,
  type GenerateContentParameters,
  type GenerateContentResponse,
} from '@google/genai';
import type { FinishReason, ModelInfo } from '../../shared/llm';
import type { WorkbenchError } from '../errors';
import { modelInfo } from './adapter-helpers';
import type { GenerateEvent } from './conversation';
import { MADE_UP_ID_PREFIX, toGeminiContents, toGeminiFunctionDeclarations } from './gemini-messages';
import {
  failureContexts,
  providerError,
  secondsFromDuration,
  streamDroppedError,
  unreachableError,
  type FailureContext,
  type ProviderFailure,
} from './llm-errors';
import type { LlmProvider } from './provider';
import { streamGeneration, type StreamTranslator } from './stream-generation';
import { toolArgumentsFromValue } from './tool-arguments';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GeminiProviderOptions {
  label: string;
  apiKey?: string;
  /** The origin, without the API version: the SDK adds `/v1beta`. */
  baseURL?: string;
}

/** Google Gemini generateContent, streamed (`:streamGenerateContent?alt=sse`), through the official SDK. */
export function createGeminiProvider(options: GeminiProviderOptions): LlmProvider {
  const baseURL = options.baseURL ?? GEMINI_BASE_URL;
  // `vertexai: false` so that GOOGLE_GENAI_USE_VERTEXAI in the environment cannot send requests elsewhere;
  // no retryOptions: the SDK then makes no retries.
  const client = new GoogleGenAI({
    vertexai: false,
    apiKey: options.apiKey ?? '',
    httpOptions: { baseUrl: baseURL, apiVersion: 'v1beta' },
  });
  const context = failureContexts(options.label, baseURL);

  return {
    kind: 'gemini',
    generate(request, signal) {
      const params: GenerateContentParameters = {
        model: request.model,
        contents: toGeminiContents(request.messages),
        config: {
          ...(request.system ? { systemInstruction: request.system } : {}),
          ...(request.tools.length === 0
            ? {}
            : { tools: [{ functionDeclarations: toGeminiFunctionDeclarations(request.tools) }] }),
          ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
          ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
        },
      };
      return streamGeneration(geminiTranslator(client, params, context('generate', request.model)), signal);
    },
    async listModels(signal) {
      try {
        const models: ModelInfo[] = [];
        const pager = await client.models.list({
          config: { pageSize: 1000, queryBase: true, ...(signal ? { abortSignal: signal } : {}) },
        });
        for await (const model of pager) {
          // The list holds embedding and other models too; only those that can generate content can chat.
          if (!model.name || !(model.supportedActions ?? []).includes('generateContent')) continue;
          models.push(
            modelInfo(
              model.name.replace(/^models\//, ''),
              model.displayName,
              model.inputTokenLimit,
              model.outputTokenLimit,
            ),
          );
        }
        return models;
      } catch (error) {
        throw mapGeminiError(error, 'connect', context('listModels'));
      }
    },
  };
}

function geminiTranslator(
  client: GoogleGenAI,
  params: GenerateContentParameters,
  context: FailureContext,
): StreamTranslator<GenerateContentResponse> {
  let finish: string | undefined;
  let finishMessage: string | undefined;
  let usage: GenerateEvent | undefined;
  let calls = 0;
  // Gemini gives calls no ids: each gets one made here, once, of a random part and its position in the reply. It is
  // unique in the chat and stays the same wherever the loop stores it; it is never sent back to Gemini.
  const idPrefix = `${MADE_UP_ID_PREFIX}${randomUUID()}-`;
  return {
    open: (signal) =>
      client.models.generateContentStream({ ...params, config: { ...params.config, abortSignal: signal } }),
    *translate(response) {
      if (response.usageMetadata) {
        const meta = response.usageMetadata;
        usage = {
          type: 'usage',
          usage: {
            inputTokens: meta.promptTokenCount ?? 0,
            outputTokens: (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0),
            ...(meta.cachedContentTokenCount ? { cachedInputTokens: meta.cachedContentTokenCount } : {}),
          },
        };
      }
      if (response.promptFeedback?.blockReason) {
        finish = GeminiFinish.SAFETY;
        finishMessage =
          response.promptFeedback.blockReasonMessage ??
          `The prompt was blocked (${response.promptFeedback.blockReason}).`;
      }
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        // Thought summaries are the model's reasoning, not its answer.
        if (part.text && !part.thought) yield { type: 'text', delta: part.text };
        if (part.functionCall) {
          const index = calls++;
          yield {
            type: 'tool_call',
            call: {
              id: part.functionCall.id ?? `${idPrefix}${index}`,
              name: part.functionCall.name ?? '',
              arguments: toolArgumentsFromValue(part.functionCall.args),
              ...(part.thoughtSignature
                ? { providerMetadata: { gemini: { thoughtSignature: part.thoughtSignature } } }
                : {}),
            },
          };
        }
      }
      if (candidate?.finishReason) {
        finish = candidate.finishReason;
        finishMessage = candidate.finishMessage ?? finishMessage;
      }
    },
    close() {
      if (finish === undefined) return undefined;
      const reason = calls > 0 && finish === GeminiFinish.STOP ? 'tool_calls' : geminiFinishReason(finish);
      return [
        ...(usage ? [usage] : []),
        { type: 'finish', reason, ...(finishMessage ? { message: finishMessage } : {}) },
      ];
    },
    mapError: (error, phase) => mapGeminiError(error, phase, context),
    droppedError: () => streamDroppedError(context),
  };
}

function geminiFinishReason(reason: string): FinishReason {
  switch (reason) {
    case GeminiFinish.STOP:
      return 'stop';
    case GeminiFinish.MAX_TOKENS:
      return 'length';
    case GeminiFinish.MALFORMED_FUNCTION_CALL:
    case GeminiFinish.UNEXPECTED_TOOL_CALL:
      return 'malformed_tool_call';
    case GeminiFinish.SAFETY:
    case GeminiFinish.RECITATION:
    case GeminiFinish.BLOCKLIST:
    case GeminiFinish.PROHIBITED_CONTENT:
    case GeminiFinish.SPII:
    case GeminiFinish.IMAGE_SAFETY:
    case GeminiFinish.IMAGE_PROHIBITED_CONTENT:
      return 'content_filter';
    default:
      return 'other';
  }
}

interface GoogleRpcError {
  code?: number;
  message?: string;
  status?: string;
  details?: { '@type'?: string; reason?: string; retryDelay?: string }[];
}

/** The SDK puts the response body, as JSON text, into the error's message (after "got status: …. " for in-stream errors). */
function parseGoogleError(message: string): GoogleRpcError | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(message.slice(start)) as { error?: GoogleRpcError | string };
    return typeof body.error === 'object'
      ? body.error
      : typeof body.error === 'string'
        ? { message: body.error }
        : undefined;
  } catch {
    return undefined;
  }
}

function mapGeminiError(error: unknown, phase: 'connect' | 'stream', context: FailureContext): WorkbenchError {
  if (error instanceof ApiError) {
    const body = parseGoogleError(error.message);
    const reason = body?.details?.find((detail) => detail.reason)?.reason;
    const retryAfterSeconds = secondsFromDuration(body?.details?.find((detail) => detail.retryDelay)?.retryDelay);
    const failure: ProviderFailure = {
      status: error.status,
      ...(body?.message ? { providerMessage: body.message } : {}),
      ...(reason || body?.status ? { providerCode: reason ?? body?.status } : {}),
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
    return providerError(failure, context);
  }
  return phase === 'connect' ? unreachableError(error, context) : streamDroppedError(context, error);
}
