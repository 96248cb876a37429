/** OpenAI chat completions as the real API writes it: `data: {chunk}` SSE events ending with `data: [DONE]`. */
import { jsonResponse, type FakeErrorKind, type FakeReply, type WireRenderer, type WireResponse } from './fake-turns';

const CREATED = 1_760_000_000;

function callId(reply: FakeReply, index: number): string {
  return reply.toolCalls?.[index]?.id ?? `call_fake${index}`;
}

function finishReason(reply: FakeReply): string {
  return (reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : (reply.finish ?? 'stop');
}

function usage(reply: FakeReply): Record<string, unknown> {
  const { input, output } = reply.usage ?? { input: 12, output: 7 };
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

const ERRORS: Record<
  FakeErrorKind,
  { status: number; type: string; code: string | null; message: (model: string) => string }
> = {
  bad_key: {
    status: 401,
    type: 'invalid_request_error',
    code: 'invalid_api_key',
    message: () =>
      'Incorrect API key provided: sk-wr***ng. You can find your API key at https://platform.openai.com/account/api-keys.',
  },
  rate_limit: {
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: (model) =>
      `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
  },
  model_not_found: {
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: (model) => `The model \`${model}\` does not exist or you do not have access to it.`,
  },
  server_error: {
    status: 500,
    type: 'server_error',
    code: null,
    message: () => 'The server had an error while processing your request. Sorry about that!',
  },
  context_too_long: {
    status: 400,
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    message: () =>
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130417 tokens. Please reduce the length of the messages.",
  },
  overloaded: {
    status: 503,
    type: 'server_error',
    code: null,
    message: () => 'The engine is currently overloaded, please try again later.',
  },
};

function errorBody(kind: FakeErrorKind, model: string): Record<string, unknown> {
  const spec = ERRORS[kind];
  return {
    error: {
      message: spec.message(model),
      type: spec.type,
      param: kind === 'context_too_long' ? 'messages' : null,
      code: spec.code,
    },
  };
}

export const openAiWire: WireRenderer = {
  streamEvents(reply, model) {
    const base = {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      system_fingerprint: 'fp_fake',
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
    const events = [chunk({ role: 'assistant', content: '', refusal: null })];
    for (const text of reply.text ?? []) events.push(chunk({ content: text }));
    (reply.toolCalls ?? []).forEach((call, index) => {
      events.push(
        chunk({
          tool_calls: [
            { index, id: callId(reply, index), type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      );
      for (const fragment of call.argumentChunks)
        events.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    });
    events.push(chunk({}, finishReason(reply)));
    events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: usage(reply) })}\n\n`);
    events.push('data: [DONE]\n\n');
    return events;
  },
  streamError(error) {
    return `data: ${JSON.stringify(errorBody(error, 'model'))}\n\n`;
  },
  json(reply, model) {
    const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
      id: callId(reply, index),
      type: 'function',
      function: { name: call.name, arguments: call.argumentChunks.join('') },
    }));
    return {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.text ? reply.text.join('') : null,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finishReason(reply),
        },
      ],
      usage: usage(reply),
      system_fingerprint: 'fp_fake',
    };
  },
  error(kind, { model, retryAfterSeconds }): WireResponse {
    const headers: Record<string, string> = { 'x-request-id': 'req_fake' };
    if (kind === 'rate_limit' && retryAfterSeconds !== undefined) {
      headers['retry-after'] = String(retryAfterSeconds);
      headers['x-ratelimit-reset-requests'] = `${retryAfterSeconds}s`;
    }
    return jsonResponse(ERRORS[kind].status, errorBody(kind, model), headers);
  },
  models(models) {
    return {
      object: 'list',
      data: models.map((model) => ({ id: model.id, object: 'model', created: CREATED, owned_by: 'system' })),
    };
  },
};
