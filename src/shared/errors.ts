import { z } from './zod';
import { ERROR_CODES } from './error-data';

/** Every error that crosses a process boundary has one of these codes (listed in error-data.ts). */
export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

/** Errors cross boundaries as plain data, never as class instances. */
export const WorkbenchErrorDataSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type WorkbenchErrorData = z.infer<typeof WorkbenchErrorDataSchema>;

/** The result of one contract call, as it travels over IPC or WebSocket. */
export const EnvelopeSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: WorkbenchErrorDataSchema }),
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;
