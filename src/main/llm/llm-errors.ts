import { WorkbenchError } from '../errors';

/** Who failed and while doing what: the words an error message needs. */
export interface FailureContext {
  /** The provider's label as the person configured it ("OpenAI", "Ollama on the NAS"). */
  providerLabel: string;
  baseURL: string;
  operation: 'generate' | 'listModels';
  model?: string;
}

/** The context maker an adapter keeps: its label and base URL, the operation and model filled in per call. */
export function failureContexts(
  providerLabel: string,
  baseURL: string,
): (operation: FailureContext['operation'], model?: string) => FailureContext {
  return (operation, model) => ({ providerLabel, baseURL, operation, ...(model === undefined ? {} : { model }) });
}

/** What an SDK error told us about a response the provider sent. */
export interface ProviderFailure {
  /** The HTTP status; absent for an error event inside a stream that had already started. */
  status?: number;
  headers?: Headers;
  /** The provider's own message. */
  providerMessage?: string;
  /** The provider's machine-readable code or type (`context_length_exceeded`, `API_KEY_INVALID`, `overloaded_error`…). */
  providerCode?: string;
  /** When the body said how long to wait (Gemini's RetryInfo); the headers are read too. */
  retryAfterSeconds?: number;
}

const BAD_KEY_CODES = new Set([
  'invalid_api_key',
  'authentication_error',
  'permission_error',
  'API_KEY_INVALID',
  'UNAUTHENTICATED',
  'PERMISSION_DENIED',
]);
const RATE_LIMIT_CODES = new Set(['rate_limit_exceeded', 'rate_limit_error', 'RESOURCE_EXHAUSTED']);
const SERVER_CODES = new Set(['api_error', 'overloaded_error', 'server_error', 'INTERNAL', 'UNAVAILABLE']);
const CONTEXT_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error']);
const CONTEXT_TEXT =
  /context length|context window|context size|maximum context|prompt is too long|too many tokens|exceeds the maximum number of tokens|input token count/i;
const MODEL_NOT_FOUND_TEXT =
  /model.*(not found|does not exist|not a valid model)|not a valid model|no such model|unknown model/i;

/** Turns a provider's error response into a `WorkbenchError` whose message says what happened and what to do. */
export function providerError(failure: ProviderFailure, context: FailureContext): WorkbenchError {
  const { status, providerMessage, providerCode } = failure;
  const who = context.providerLabel;
  const http = status === undefined ? '' : ` (HTTP ${status})`;
  // The provider's own sentence ends where ours goes on, so its final full stop goes ("…later.. Try again").
  const said = providerMessage ? `: ${providerMessage.trim().replace(/\.+$/, '')}` : '';
  const details = {
    provider: who,
    ...(status === undefined ? {} : { status }),
    ...(providerCode ? { providerCode } : {}),
    ...(providerMessage ? { providerMessage } : {}),
  };
  const code = providerCode ?? '';

  if (status === 401 || status === 403 || BAD_KEY_CODES.has(code)) {
    return new WorkbenchError(
      'llm_bad_key',
      `${who} did not accept the API key${http}${said}. Check the key in the provider's settings.`,
      details,
    );
  }
  if (status === 429 || RATE_LIMIT_CODES.has(code)) {
    const retryAfterSeconds = failure.retryAfterSeconds ?? retryAfterFromHeaders(failure.headers);
    const when =
      retryAfterSeconds === undefined
        ? 'Wait a moment and try again'
        : `Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
    return new WorkbenchError('llm_rate_limited', `${who} is limiting requests${http}${said}. ${when}.`, {
      ...details,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  if (
    status === 413 ||
    CONTEXT_CODES.has(code) ||
    (providerMessage !== undefined && CONTEXT_TEXT.test(providerMessage))
  ) {
    const model = context.model ? ` for ${context.model}` : '';
    return new WorkbenchError(
      'llm_context_too_long',
      `The conversation is too long${model}${said}. Start a new chat, or remove long messages or attachments.`,
      details,
    );
  }
  if (context.operation === 'listModels' && status === 404) {
    return new WorkbenchError(
      'llm_request_rejected',
      `${who} has no model list at ${context.baseURL}${http}. Check the base URL.`,
      details,
    );
  }
  if (
    status === 404 ||
    (status !== undefined &&
      status < 500 &&
      providerMessage !== undefined &&
      MODEL_NOT_FOUND_TEXT.test(providerMessage))
  ) {
    const model = context.model ? ` "${context.model}"` : '';
    return new WorkbenchError(
      'llm_model_not_found',
      `${who} has no model${model}${http}${said}. Pick another model.`,
      details,
    );
  }
  if ((status !== undefined && status >= 500) || SERVER_CODES.has(code) || status === undefined) {
    return new WorkbenchError('llm_server_error', `${who} had a server error${http}${said}. Try again later.`, details);
  }
  return new WorkbenchError('llm_request_rejected', `${who} rejected the request${http}${said}.`, details);
}

/** A failure before any response arrived: the connection could not be made. */
export function unreachableError(error: unknown, context: FailureContext): WorkbenchError {
  const cause = describeNetworkCause(error);
  return new WorkbenchError(
    'llm_unreachable',
    `Cannot reach ${context.providerLabel} at ${context.baseURL}: ${cause.description}. Check the address and your network.`,
    {
      provider: context.providerLabel,
      baseURL: context.baseURL,
      ...(cause.code ? { cause: cause.code } : {}),
    },
  );
}

/** The response had started and the connection ended before the provider said it was done. */
export function streamDroppedError(context: FailureContext, error?: unknown): WorkbenchError {
  const cause = error === undefined ? undefined : describeNetworkCause(error);
  return new WorkbenchError(
    'llm_stream_dropped',
    `The connection to ${context.providerLabel} ended in the middle of the reply${cause ? ` (${cause.description})` : ''}. The reply is incomplete; try again.`,
    { provider: context.providerLabel, ...(cause?.code ? { cause: cause.code } : {}) },
  );
}

/** Seconds to wait, from `retry-after-ms` or `retry-after` (seconds or an HTTP date), rounded up. */
export function retryAfterFromHeaders(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds / 1000);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Google's duration text ("37s", "1.5s") in whole seconds, rounded up. */
export function secondsFromDuration(duration: unknown): number | undefined {
  if (typeof duration !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(duration.trim());
  return match ? Math.ceil(Number(match[1])) : undefined;
}

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was reset',
  UND_ERR_SOCKET: 'the connection was closed',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's TLS certificate could not be verified",
};

/** The most specific system error code in an error's cause chain, in words. */
export function describeNetworkCause(error: unknown): { code?: string; description: string } {
  let current: unknown = error;
  let fallback: string | undefined;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_CAUSES)
      return { code, description: NETWORK_CAUSES[code] as string };
    if (/timed? ?out/i.test(String((current as { message?: unknown }).message)))
      fallback ??= 'the connection timed out';
    current = (current as { cause?: unknown }).cause;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { description: fallback ?? message };
}

/** Whether an error is the platform's or an SDK's way of saying the request was aborted. */
export function isAbortError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}
