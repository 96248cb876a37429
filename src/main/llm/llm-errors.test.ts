import { describe, expect, it } from 'vitest';
import {
  describeNetworkCause,
  providerError,
  retryAfterFromHeaders,
  secondsFromDuration,
  type FailureContext,
} from './llm-errors';

const context: FailureContext = {
  providerLabel: 'Ollama',
  baseURL: 'http://nas:11434/v1',
  operation: 'generate',
  model: 'llama3',
};

describe('providerError', () => {
  it.each([
    [{ status: 401 }, 'llm_bad_key'],
    [{ status: 403 }, 'llm_bad_key'],
    [{ status: 400, providerCode: 'API_KEY_INVALID' }, 'llm_bad_key'],
    [{ status: 429 }, 'llm_rate_limited'],
    [{ providerCode: 'rate_limit_error' }, 'llm_rate_limited'],
    [{ status: 413 }, 'llm_context_too_long'],
    [
      { status: 400, providerMessage: 'the request exceeds the available context size, try increasing it' },
      'llm_context_too_long',
    ],
    [{ status: 404 }, 'llm_model_not_found'],
    [{ status: 400, providerMessage: 'foo/bar is not a valid model ID' }, 'llm_model_not_found'],
    [{ status: 502 }, 'llm_server_error'],
    [{ providerCode: 'overloaded_error' }, 'llm_server_error'],
    [{ status: 422, providerMessage: 'temperature must be at most 2' }, 'llm_request_rejected'],
  ] as const)('maps %j to %s', (failure, code) => {
    expect(providerError(failure, context).code).toBe(code);
  });

  it('says what happened and what to do, with the provider’s own words in the details', () => {
    const error = providerError(
      { status: 404, providerMessage: 'model "llama3" not found, try pulling it first', providerCode: 'not_found' },
      context,
    );
    expect(error.message).toBe(
      'Ollama has no model "llama3" (HTTP 404): model "llama3" not found, try pulling it first. Pick another model.',
    );
    expect(error.details).toEqual({
      provider: 'Ollama',
      status: 404,
      providerCode: 'not_found',
      providerMessage: 'model "llama3" not found, try pulling it first',
    });
  });

  it('does not double the full stop when the provider ends its sentence with one', () => {
    const error = providerError({ status: 500, providerMessage: 'Internal error. Please retry later.' }, context);
    expect(error.message).toBe(
      'Ollama had a server error (HTTP 500): Internal error. Please retry later. Try again later.',
    );
  });

  it('reads a missing model list as a wrong base URL, not a missing model', () => {
    const error = providerError({ status: 404 }, { ...context, operation: 'listModels' });
    expect(error.code).toBe('llm_request_rejected');
    expect(error.message).toContain('Check the base URL');
  });

  it('gives the wait from the headers when the body has none', () => {
    const error = providerError({ status: 429, headers: new Headers({ 'retry-after': '1' }) }, context);
    expect(error.message).toContain('Try again in 1 second.');
    expect(error.details).toMatchObject({ retryAfterSeconds: 1 });
    expect(providerError({ status: 429 }, context).message).toContain('Wait a moment and try again.');
  });
});

describe('retry-after', () => {
  it('reads milliseconds, seconds and HTTP dates, rounding up', () => {
    expect(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(2);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '20' }))).toBe(20);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterFromHeaders(undefined)).toBeUndefined();
  });

  it("reads Google's durations", () => {
    expect(secondsFromDuration('37s')).toBe(37);
    expect(secondsFromDuration('0.2s')).toBe(1);
    expect(secondsFromDuration(37)).toBeUndefined();
  });
});

describe('describeNetworkCause', () => {
  it('finds the system error code deep in the cause chain', () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND nas'), { code: 'ENOTFOUND' }),
    });
    expect(describeNetworkCause(new Error('Connection error.', { cause: error }))).toEqual({
      code: 'ENOTFOUND',
      description: 'the host name could not be resolved',
    });
  });

  it('falls back to the message', () => {
    expect(describeNetworkCause(new Error('something odd'))).toEqual({ description: 'something odd' });
  });
});
