import { z } from 'zod';

/** Every error that crosses a process boundary has one of these codes. */
export const ErrorCodeSchema = z.enum([
  'invalid_input',
  'unknown_method',
  'not_found',
  'already_exists',
  'unauthorized',
  'unavailable',
  'internal',
  // A language model provider failed; the message says what to do, `details` carries the provider's own words.
  'llm_bad_key',
  'llm_rate_limited',
  'llm_context_too_long',
  'llm_model_not_found',
  'llm_server_error',
  'llm_unreachable',
  'llm_stream_dropped',
  'llm_request_rejected',
  /** The name or thing already exists (an MCP server name…). */
  'conflict',
  /** The operation did not finish in time (an MCP tool call, a server's initialize). */
  'timeout',
  /** The caller cancelled the operation. */
  'cancelled',
  /** The setting is locked by the organisation's policy (docs/user/organisation-policy.md): "Set by your organisation". */
  'locked',
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** Errors cross boundaries as plain data, never as class instances. */
export const WorkbenchErrorDataSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type WorkbenchErrorData = z.infer<typeof WorkbenchErrorDataSchema>;

/** Shape check instead of `instanceof`: the renderer receives plain objects from IPC and WebSocket alike. */
export function isWorkbenchErrorData(value: unknown): value is WorkbenchErrorData {
  return WorkbenchErrorDataSchema.safeParse(value).success;
}

/** What a failed call says, in words: contract calls reject with plain `{ code, message }` data, other code with an Error. */
export function errorText(error: unknown): string {
  if (isWorkbenchErrorData(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** The result of one contract call, as it travels over IPC or WebSocket. */
export const EnvelopeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: WorkbenchErrorDataSchema }),
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;
