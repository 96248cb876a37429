/**
 * Gemini generateContent as the real API writes it: each SSE event a whole GenerateContentResponse, function
 * calls as complete `functionCall` parts without ids (the first one with a `thoughtSignature`, as Gemini 3
 * sends), and google.rpc error bodies `{ error: { code, message, status, details } }`.
 */
import { jsonResponse, type FakeErrorKind, type FakeReply, type WireRenderer } from './fake-turns';

/** The thought signature the fake attaches to the first function call of a reply; the provider must send it back. */
export const FAKE_THOUGHT_SIGNATURE = 'c2lnbmF0dXJlLW9mLXRoZS1mYWtl';

function usageMetadata(reply: FakeReply): Record<string, number> {
  const { input, output } = reply.usage ?? { input: 12, output: 7 };
  return { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
}

type Part = Record<string, unknown>;

/** The reply as Gemini parts, or the raw text of the first call whose arguments do not parse. */
function parts(reply: FakeReply): { textParts: Part[]; callParts: Part[]; malformed?: string } {
  const textParts = (reply.text ?? []).map((text) => ({ text }));
  const callParts: Part[] = [];
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const raw = call.argumentChunks.join('');
    let args: unknown;
    try {
      args = JSON.parse(raw || '{}');
    } catch {
      return { textParts, callParts: [], malformed: `${call.name}(${raw})` };
    }
    callParts.push({
      functionCall: { name: call.name, args },
      ...(index === 0 ? { thoughtSignature: FAKE_THOUGHT_SIGNATURE } : {}),
    });
  }
  return { textParts, callParts };
}

function finishReason(reply: FakeReply): string {
  return reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP';
}

let responses = 0;

/** One GenerateContentResponse; every chunk of one streamed reply carries the same response id, as Gemini's do. */
function response(
  candidate: Record<string, unknown>,
  model: string,
  usage: Record<string, number>,
  responseId: string,
): Record<string, unknown> {
  return { candidates: [{ ...candidate, index: 0 }], usageMetadata: usage, modelVersion: model, responseId };
}

const ERRORS: Record<
  FakeErrorKind,
  { code: number; status: string; message: (model: string) => string; details?: (retry?: number) => unknown[] }
> = {
  bad_key: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: () => 'API key not valid. Please pass a valid API key.',
    details: () => [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      {
        '@type': 'type.googleapis.com/google.rpc.LocalizedMessage',
        locale: 'en-US',
        message: 'API key not valid. Please pass a valid API key.',
      },
    ],
  },
  rate_limit: {
    code: 429,
    status: 'RESOURCE_EXHAUSTED',
    message: () =>
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    details: (retry) => [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          },
        ],
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [
          {
            description: 'Learn more about Gemini API quotas',
            url: 'https://ai.google.dev/gemini-api/docs/rate-limits',
          },
        ],
      },
      ...(retry === undefined
        ? []
        : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }]),
    ],
  },
  model_not_found: {
    code: 404,
    status: 'NOT_FOUND',
    message: (model) =>
      `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
  },
  server_error: {
    code: 500,
    status: 'INTERNAL',
    message: () =>
      'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  },
  context_too_long: {
    code: 400,
    status: 'INVALID_ARGUMENT',
    message: () => 'The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).',
  },
  overloaded: { code: 503, status: 'UNAVAILABLE', message: () => 'The model is overloaded. Please try again later.' },
};

function errorBody(kind: FakeErrorKind, model: string, retryAfterSeconds?: number): Record<string, unknown> {
  const spec = ERRORS[kind];
  return {
    error: {
      code: spec.code,
      message: spec.message(model),
      status: spec.status,
      ...(spec.details ? { details: spec.details(retryAfterSeconds) } : {}),
    },
  };
}

export const geminiWire: WireRenderer = {
  streamEvents(reply, model) {
    const { textParts, callParts, malformed } = parts(reply);
    const id = `fake-response-${++responses}`;
    const event = (body: Record<string, unknown>): string => `data: ${JSON.stringify(body)}\r\n\r\n`;
    const events = textParts.map((part) =>
      event(response({ content: { parts: [part], role: 'model' } }, model, usageMetadata(reply), id)),
    );
    if (malformed !== undefined) {
      events.push(
        event(
          response(
            {
              content: {},
              finishReason: 'MALFORMED_FUNCTION_CALL',
              finishMessage: `Malformed function call: ${malformed}`,
            },
            model,
            usageMetadata(reply),
            id,
          ),
        ),
      );
      return events;
    }
    callParts.forEach((part) =>
      events.push(event(response({ content: { parts: [part], role: 'model' } }, model, usageMetadata(reply), id))),
    );
    // The last event carries the finish reason (Gemini says STOP for function calls too).
    events.push(
      event(
        response(
          { content: { parts: [{ text: '' }], role: 'model' }, finishReason: finishReason(reply) },
          model,
          usageMetadata(reply),
          id,
        ),
      ),
    );
    return events;
  },
  streamError(error) {
    return `data: ${JSON.stringify(errorBody(error, 'model'))}\r\n\r\n`;
  },
  json(reply, model) {
    const { textParts, callParts, malformed } = parts(reply);
    const id = `fake-response-${++responses}`;
    if (malformed !== undefined) {
      return response(
        {
          content: {},
          finishReason: 'MALFORMED_FUNCTION_CALL',
          finishMessage: `Malformed function call: ${malformed}`,
        },
        model,
        usageMetadata(reply),
        id,
      );
    }
    const text = textParts.length > 0 ? [{ text: textParts.map((part) => part['text']).join('') }] : [];
    return response(
      { content: { parts: [...text, ...callParts], role: 'model' }, finishReason: finishReason(reply) },
      model,
      usageMetadata(reply),
      id,
    );
  },
  error(kind, { model, retryAfterSeconds }) {
    return jsonResponse(ERRORS[kind].code, errorBody(kind, model, retryAfterSeconds));
  },
  models(models) {
    return {
      models: [
        ...models.map((model) => ({
          name: `models/${model.id}`,
          version: '001',
          displayName: model.label ?? model.id,
          description: `${model.label ?? model.id} (fake)`,
          inputTokenLimit: model.contextWindow ?? 1_048_576,
          outputTokenLimit: model.maxOutputTokens ?? 65_536,
          supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
        })),
        // Gemini lists models that cannot chat as well; a provider must leave them out.
        {
          name: 'models/text-embedding-004',
          version: '004',
          displayName: 'Text Embedding 004',
          inputTokenLimit: 2048,
          outputTokenLimit: 1,
          supportedGenerationMethods: ['embedContent'],
        },
      ],
    };
  },
};
