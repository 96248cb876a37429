/** The script language of the fake LLM server: what to answer, in neutral terms each wire format renders its own way. */

export type WireFormat = 'openai' | 'anthropic' | 'gemini';

export interface FakeToolCall {
  /** The call id the provider gives (OpenAI, Anthropic); Gemini gives none. Made up when absent. */
  id?: string;
  name: string;
  /**
   * The arguments' JSON text in the fragments the server streams them in (OpenAI `arguments` deltas, Anthropic
   * `input_json_delta`s). Gemini sends whole calls: it joins and parses them, and when they do not parse it answers
   * the way Gemini does, with `finishReason: MALFORMED_FUNCTION_CALL`.
   */
  argumentChunks: string[];
}

export type FakeErrorKind =
  'bad_key' | 'rate_limit' | 'model_not_found' | 'server_error' | 'context_too_long' | 'overloaded';

export interface FakeReply {
  kind: 'reply';
  /** Text deltas, in order. */
  text?: string[];
  toolCalls?: FakeToolCall[];
  /** How the reply ends when it has no tool calls. Default `stop`. */
  finish?: 'stop' | 'length';
  usage?: { input: number; output: number };
  /** Destroy the socket after this many SSE events: a stream dropped mid-way. */
  dropAfter?: number;
  /** Send this many SSE events, then keep the connection open without a word until the client goes. */
  holdOpenAfter?: number;
  /** Send `events` SSE events, then wait until `until` settles before the rest: a reply still streaming. */
  pauseAfter?: { events: number; until: Promise<unknown> };
  /** Send the provider's in-stream error event after this many SSE events, then end the stream. */
  errorAfter?: { events: number; error: FakeErrorKind };
}

export interface FakeError {
  kind: 'error';
  error: FakeErrorKind;
  /** For rate limits: the `retry-after` header (OpenAI, Anthropic) or the RetryInfo delay (Gemini). */
  retryAfterSeconds?: number;
}

/** Any status, headers and body, for what the named errors do not cover. */
export interface FakeRaw {
  kind: 'raw';
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export type FakeTurn = FakeReply | FakeError | FakeRaw;

export interface FakeModel {
  id: string;
  label?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

/** One HTTP response the server will write: a JSON body, or SSE events. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** How one wire format renders the script. */
export interface WireRenderer {
  /** The SSE events of a reply, each a complete `event:`/`data:` block with its blank line. */
  streamEvents(reply: FakeReply, model: string): string[];
  /** The in-stream error event of the format. */
  streamError(error: FakeErrorKind): string;
  /** The non-streaming JSON answer to a reply. */
  json(reply: FakeReply, model: string): unknown;
  /** The status, headers and body the real provider answers an error with. */
  error(error: FakeErrorKind, options: { model: string; retryAfterSeconds?: number }): WireResponse;
  /** The body of the provider's model list. */
  models(models: readonly FakeModel[]): unknown;
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}
