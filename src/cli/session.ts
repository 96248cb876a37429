import type { MethodInput, MethodName, MethodOutput } from '../shared/contract';
import { createDispatcher, type Dispatch } from '../main/host/dispatcher';
import { createHandlers } from '../main/host/handlers';
import { openThroughRedirectPage } from '../main/host/open-url';
import { startServices, type ServicesLifecycle } from '../main/lifecycle';
import { isStartupProblem, type Services } from '../main/services';
import { resolveDataDir } from '../main/settings/data-dir';
import { describeDataFolderRepair } from '../main/storage/owner-only';
import { CliError } from './exit-codes';
import { sanitizeForTerminal } from './terminal-text';

/**
 * The CLI's composition root: the same services as the app and browser mode, reached through the same
 * contract dispatcher (every payload validated, every error as data). MCP servers start only for the
 * commands that need them.
 */
export interface CliSession {
  readonly services: Services;
  /** Calls a contract method; a failure becomes a `CliError` with the service's message. */
  call<M extends MethodName>(method: M, input?: MethodInput<M>): Promise<MethodOutput<M>>;
  /** Starts the enabled MCP servers and waits until each is ready with its tools, or has failed (at most `timeoutMs`). */
  startServers(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface SessionOptions {
  version: string;
  /** The command being run (`chat`), named by other processes beside the requests this one holds. */
  command?: string;
  /** Where the internal errors of the dispatcher go (stderr). */
  onInternalError?: (error: unknown, method: string) => void;
}

export function openSession(options: SessionOptions): CliSession {
  let lifecycle: ServicesLifecycle;
  const dataDir = resolveDataDir();
  try {
    lifecycle = startServices({
      dataDir,
      host: 'cli',
      version: options.version,
      ...(options.command ? { command: options.command } : {}),
      // `workbench servers login` prints the address when this returns false (no desktop here).
      openSignInPage: (url) => openThroughRedirectPage(dataDir, url),
      onListenerError: (error) =>
        process.stderr.write(
          `workbench: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`,
        ),
      onStopError: (step, error) =>
        process.stderr.write(
          `workbench: stopping ${step} failed: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`,
        ),
    });
  } catch (error) {
    if (isStartupProblem(error)) throw new CliError(`AI Workbench cannot start: ${error.message}`);
    throw error;
  }
  const { services } = lifecycle;
  const repaired = describeDataFolderRepair(services.dataFolderRepair);
  if (repaired) process.stderr.write(`workbench: ${sanitizeForTerminal(repaired)}\n`);
  const dispatch: Dispatch = createDispatcher(
    createHandlers(services),
    options.onInternalError ??
      ((error, method) => process.stderr.write(`[${method}] ${sanitizeForTerminal(String(error))}\n`)),
  );
  // The session's input is its callers: once closing began, no call reaches a service.
  let accepting = true;
  lifecycle.addInput('cli calls', () => {
    accepting = false;
  });

  return {
    services,
    async call(method, input) {
      if (!accepting) throw new CliError(`AI Workbench is shutting down; ${method} was not called.`);
      const envelope = await dispatch(method, input);
      if (!envelope.ok) throw new CliError(envelope.error.message);
      return envelope.value as MethodOutput<typeof method>;
    },
    async startServers(timeoutMs) {
      services.mcp.start();
      await services.mcp.whenSettled(timeoutMs === undefined ? undefined : { timeoutMs });
    },
    async close() {
      await lifecycle.stop();
    },
  };
}
