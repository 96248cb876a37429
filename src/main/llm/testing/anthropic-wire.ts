/**
 * Anthropic messages as the real API writes them: `event: message_start`, `content_block_start`,
 * `content_block_delta` (`text_delta`, `input_json_delta`), `content_block_stop`, `message_delta`, `message_stop`,
 * with `ping`s between, and `{ type: 'error', error: { type, message } }` bodies.
 */
import { jsonResponse, type FakeErrorKind, type FakeReply, type WireRenderer } from './fake-turns';

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function callId(reply: FakeReply, index: number): string {
  return reply.toolCalls?.[index]?.id ?? `toolu_fake${index}`;
}

function stopReason(reply: FakeReply): string {
  if ((reply.toolCalls?.length ?? 0) > 0) return 'tool_use';
  return reply.finish === 'length' ? 'max_tokens' : 'end_turn';
}

const ERRORS: Record<FakeErrorKind, { status: number; type: string; message: (model: string) => string }> = {
  bad_key: { status: 401, type: 'authentication_error', message: () => 'invalid x-api-key' },
  rate_limit: {
    status: 429,
    type: 'rate_limit_error',
    message: () =>
      'This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
  },
  model_not_found: { status: 404, type: 'not_found_error', message: (model) => `model: ${model}` },
  server_error: { status: 500, type: 'api_error', message: () => 'Internal server error' },
  context_too_long: {
    status: 400,
    type: 'invalid_request_error',
    message: () => 'prompt is too long: 208310 tokens > 200000 maximum',
  },
  overloaded: { status: 529, type: 'overloaded_error', message: () => 'Overloaded' },
};

function errorBody(kind: FakeErrorKind, model: string): Record<string, unknown> {
  return {
    type: 'error',
    error: { type: ERRORS[kind].type, message: ERRORS[kind].message(model) },
    request_id: 'req_011CfakeRequest',
  };
}

function content(reply: FakeReply): Record<string, unknown>[] {
  return [
    ...(reply.text ? [{ type: 'text', text: reply.text.join('') }] : []),
    ...(reply.toolCalls ?? []).map((call, index) => ({
      type: 'tool_use',
      id: callId(reply, index),
      name: call.name,
      input: JSON.parse(call.argumentChunks.join('') || '{}') as unknown,
    })),
  ];
}

export const anthropicWire: WireRenderer = {
  streamEvents(reply, model) {
    const usage = reply.usage ?? { input: 12, output: 7 };
    const events = [
      sse('message_start', {
        message: {
          id: 'msg_fake',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: usage.input,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 1,
          },
        },
      }),
    ];
    let index = 0;
    if (reply.text) {
      events.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      events.push(sse('ping', {}));
      for (const text of reply.text)
        events.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text } }));
      events.push(sse('content_block_stop', { index }));
      index++;
    }
    (reply.toolCalls ?? []).forEach((call, callIndex) => {
      events.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: callId(reply, callIndex), name: call.name, input: {} },
        }),
      );
      events.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const fragment of call.argumentChunks)
        events.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fragment } }));
      events.push(sse('content_block_stop', { index }));
      index++;
    });
    events.push(
      sse('message_delta', {
        delta: { stop_reason: stopReason(reply), stop_sequence: null },
        usage: { output_tokens: usage.output },
      }),
    );
    events.push(sse('message_stop', {}));
    return events;
  },
  streamError(error) {
    return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: ERRORS[error].type, message: ERRORS[error].message('model') } })}\n\n`;
  },
  json(reply, model) {
    const usage = reply.usage ?? { input: 12, output: 7 };
    return {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model,
      content: content(reply),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: usage.output,
      },
    };
  },
  error(kind, { model, retryAfterSeconds }) {
    const headers: Record<string, string> = { 'request-id': 'req_011CfakeRequest' };
    if (kind === 'rate_limit' && retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
    return jsonResponse(ERRORS[kind].status, errorBody(kind, model), headers);
  },
  models(models) {
    const data = models.map((model) => ({
      type: 'model',
      id: model.id,
      display_name: model.label ?? model.id,
      created_at: '2025-09-29T00:00:00Z',
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  },
};
