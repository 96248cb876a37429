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

/** The result of one contract call, as it travels over IPC or WebSocket. */
export const EnvelopeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: WorkbenchErrorDataSchema }),
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;
