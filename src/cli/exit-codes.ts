/** How `workbench` ends; documented in `workbench --help` and docs/user/cli.md. */
export const EXIT = {
  ok: 0,
  /** Anything went wrong: a bad flag or value, a service error, a failed reply. */
  error: 1,
  /** A tool call was denied (by a rule, by you, or because no one could be asked). */
  denied: 2,
  /** `audit verify` found the log (or an export) broken. */
  verifyFailed: 3,
  /** Interrupted with Ctrl+C. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    an error (a bad flag or value, a failed call or reply)
  2    a tool call was denied (by a rule, by you, or because no one could be asked)
  3    audit verify found the log or export broken
  130  interrupted (Ctrl+C)`;

/** An error a person can act on: printed as `workbench: <message>` and ends the command with `code`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode = EXIT.error,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
