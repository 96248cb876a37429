import { fileURLToPath } from 'node:url';
import type { MethodInput, MethodName, MethodOutput } from '../shared/contract';
import { createDispatcher, type Dispatch } from '../main/host/dispatcher';
import { createHandlers } from '../main/host/handlers';
import { createServices, isStartupProblem, type Services } from '../main/services';
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
  /** Where the internal errors of the dispatcher go (stderr). */
  onInternalError?: (error: unknown, method: string) => void;
}

export function openSession(options: SessionOptions): CliSession {
  let services: Services;
  try {
    services = createServices({
      dataDir: resolveDataDir(),
      host: 'cli',
      version: options.version,
      onListenerError: (error) => process.stderr.write(`workbench: ${sanitizeForTerminal(error instanceof Error ? error.message : String(error))}\n`),
      auditWorkerFile: fileURLToPath(new URL('./audit-worker.js', import.meta.url)),
    });
  } catch (error) {
    if (isStartupProblem(error)) throw new CliError(`AI Workbench cannot start: ${error.message}`);
    throw error;
  }
  const repaired = describeDataFolderRepair(services.dataFolderRepair);
  if (repaired) process.stderr.write(`workbench: ${sanitizeForTerminal(repaired)}\n`);
  const dispatch: Dispatch = createDispatcher(createHandlers(services), options.onInternalError ?? ((error, method) => process.stderr.write(`[${method}] ${sanitizeForTerminal(String(error))}\n`)));
  let serversStarted = false;
  // Whatever ends the process (an error, process.exit): no MCP server outlives the CLI.
  const onExit = (): void => services.mcp.stopNow();
  process.on('exit', onExit);

  return {
    services,
    async call(method, input) {
      const envelope = await dispatch(method, input);
      if (!envelope.ok) throw new CliError(envelope.error.message);
      return envelope.value as MethodOutput<typeof method>;
    },
    async startServers(timeoutMs) {
      if (!serversStarted) services.mcp.start();
      serversStarted = true;
      await services.mcp.whenSettled(timeoutMs === undefined ? undefined : { timeoutMs });
    },
    async close() {
      await services.conversations.dispose();
      if (serversStarted) await services.mcp.stop();
      services.close();
      process.off('exit', onExit);
    },
  };
}
