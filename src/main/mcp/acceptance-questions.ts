import { WorkbenchError } from '../errors';

/** One open question to the person: whether to accept what a server runs now. Answer it once. */
export interface AcceptanceQuestion {
  answer(accepted: boolean): void;
}

/**
 * The questions open now about accepting what a server runs (docs/user/cli.md#settingsjson-while-chat-runs): a call
 * of such a server, allowed meanwhile, waits for the answer instead of failing, and never runs before it.
 */
export interface AcceptanceQuestions {
  /** The person is being asked about `name` now; a call of it waits until `answer`. */
  ask(name: string): AcceptanceQuestion;
  /** The answer to the question open about `name` (true: accepted), or undefined when none is open. */
  pending(name: string): Promise<boolean> | undefined;
}

export function createAcceptanceQuestions(): AcceptanceQuestions {
  const open = new Map<string, Promise<boolean>>();
  return {
    ask(name) {
      let settle: (accepted: boolean) => void = () => undefined;
      const answered = new Promise<boolean>((resolve) => (settle = resolve));
      open.set(name, answered);
      return {
        answer(accepted) {
          if (open.get(name) === answered) open.delete(name);
          settle(accepted);
        },
      };
    },
    pending: (name) => open.get(name),
  };
}

/**
 * Waits for the person's answer about the server, then for the server to start: resolves once it may be called
 * (the call then goes through the door as any other). Throws `refused` when the person kept it stopped, `timeout`
 * after the call's own timeout, `cancelled` when the call is, and `conflict` when the server it started lists the
 * tool differently from the definition the call was decided on.
 */
export async function afterAcceptance(
  answered: Promise<boolean>,
  {
    name,
    toolName,
    timeoutMs,
    signal,
    definitionHash,
    whenSettled,
    currentHash,
  }: {
    name: string;
    toolName: string;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    definitionHash?: string | undefined;
    whenSettled(signal: AbortSignal | undefined): Promise<void>;
    currentHash(): string | undefined;
  },
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new WorkbenchError(
            'timeout',
            `The call to ${name}.${toolName} waited ${Math.round(timeoutMs / 1000)} s for you to accept what "${name}" runs now; the tool did not run.`,
          ),
        ),
      timeoutMs,
    );
    onAbort = () =>
      reject(
        new WorkbenchError(
          'cancelled',
          `The call to ${name}.${toolName} was cancelled while it waited for you to accept what "${name}" runs now; the tool did not run.`,
        ),
      );
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  let accepted: boolean;
  try {
    accepted = await Promise.race([answered, gaveUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  if (!accepted)
    throw new WorkbenchError(
      'refused',
      `You kept "${name}" stopped: what it runs now is not accepted, so ${name}.${toolName} did not run.`,
      { server: name, tool: toolName },
    );
  await whenSettled(signal);
  if (definitionHash !== undefined && currentHash() !== definitionHash)
    throw new WorkbenchError(
      'conflict',
      `The tool "${toolName}" of "${name}" changed after the call was decided (what the server runs now lists another definition), so it did not run.`,
      { server: name, tool: toolName },
    );
}
