import type { ErrorCode, WorkbenchErrorData } from '../shared/errors';

/** Thrown by services for failures a person should read; hosts turn it into `{ code, message, details }`. */
export class WorkbenchError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'WorkbenchError';
  }

  toData(): WorkbenchErrorData {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
