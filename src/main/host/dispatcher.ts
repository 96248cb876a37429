import type { z } from 'zod';
import {
  isMethodName,
  methods,
  type MethodName,
  type MethodOutput,
  type MethodParsedInput,
} from '../../shared/contract';
import type { Envelope, WorkbenchErrorData } from '../../shared/errors';
import { WorkbenchError } from '../errors';
import { internalFailure, internalMismatch } from './failure-words';

/** One handler per contract method; TypeScript rejects a map that misses one or returns the wrong shape. */
export type MethodHandlers = {
  [M in MethodName]: (input: MethodParsedInput<M>) => MethodOutput<M> | Promise<MethodOutput<M>>;
};

/** Validates a call against the contract, runs its handler and answers with an envelope. Never throws. */
export type Dispatch = (method: unknown, input: unknown) => Promise<Envelope>;

export function createDispatcher(
  handlers: MethodHandlers,
  onInternalError: (error: unknown, method: string) => void,
): Dispatch {
  return async (method, input) => {
    if (!isMethodName(method)) {
      return failure({ code: 'unknown_method', message: `Unknown method ${describe(method)}.` });
    }
    const spec = methods[method];
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) return failure(invalidInput(method, parsed.error));
    try {
      const handler = handlers[method] as (input: unknown) => unknown;
      const value = await handler(parsed.data);
      const checked = spec.output.safeParse(value);
      if (!checked.success) {
        onInternalError(checked.error, method);
        return failure(internalMismatch(method, parsed.data));
      }
      return { ok: true, value: checked.data };
    } catch (error) {
      if (error instanceof WorkbenchError) return failure(error.toData());
      onInternalError(error, method);
      return failure(internalFailure(method, parsed.data, error));
    }
  };
}

function failure(error: WorkbenchErrorData): Envelope {
  return { ok: false, error };
}

/** `Invalid input for chat.rename: title must not be empty` — the field comes first, as a person reads it. */
function invalidInput(method: string, error: z.ZodError): WorkbenchErrorData {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const text = issues.map((issue) => `${issue.path || 'input'}: ${issue.message}`).join('; ');
  return { code: 'invalid_input', message: `Invalid input for ${method}: ${text}`, details: { issues } };
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return `(${value === null ? 'null' : typeof value})`;
}
