import { createServices, type Services, type ServicesOptions } from './services';
import { createShutdown, trackRunning, type LifecycleState, type StopReport, type StopStep } from './shutdown';

/**
 * One start/stop lifecycle for the services, shared by the three composition roots (the Electron app, browser
 * mode, the CLI; docs/dev/architecture.md "Hosts"). Each host opens the services with `startServices`, registers
 * what feeds it input (a WebSocket server, IPC handlers, the tray, a terminal session) with `addInput`, and ends
 * with `stop()`, which always goes through the same order:
 *
 *   1. stop accepting input (the host's inputs, in the order they were added): no new call reaches a service;
 *   2. stop the exchanges: streams and running tool calls are cancelled and awaited (calls waiting for a person
 *      stay in the database, to be answered after a restart);
 *   3. dispose pending timers: the approval timeouts and the audit export downloads; stop audit shipping;
 *   4. stop the MCP servers, with every process they started;
 *   5. close the database — last, so every step before it can still write its rows.
 *
 * A step that fails is reported and the later steps still run: a crashed MCP server must not leave the database
 * open. `stop()` is idempotent: every call returns the same promise.
 */
export interface ServicesLifecycle {
  readonly services: Services;
  readonly state: LifecycleState;
  /** Registers something that feeds the services; `stop()` closes it first. Refused once stopping began. */
  addInput(name: string, close: () => void | Promise<void>): void;
  /** The ordered shutdown above. Never rejects: failures are in the report (and passed to `onStopError`). */
  stop(): Promise<StopReport>;
}

export interface LifecycleOptions extends ServicesOptions {
  /** Told about each step that failed while stopping (the hosts log it). */
  onStopError?: (step: string, error: unknown) => void;
}

/** The steps after the host's inputs, in order. */
const SERVICE_STEPS: ReadonlyArray<readonly [name: string, run: (services: Services) => void | Promise<void>]> = [
  ['exchanges', (services) => services.conversations.dispose()],
  ['approval timers', (services) => services.approvals.dispose()],
  ['audit export downloads', (services) => services.auditDownloads.dispose()],
  // What was not shipped yet stays behind the sinks' cursors in the database, and goes at the next start.
  ['audit shipping', (services) => services.auditShipping.stop()],
  ['mcp servers', (services) => services.mcp.stop()],
  // `close()` also disposes what the steps above already disposed; each of those is safe to repeat.
  ['database', (services) => services.close()],
];

/** The names a `StopReport` lists after the host's inputs (which are named `input: NAME`). */
export const SERVICE_STOP_STEPS: readonly string[] = SERVICE_STEPS.map(([name]) => name);

/**
 * Opens the services (settings, secrets, database; see `createServices` for what it throws) and returns their
 * lifecycle. MCP servers are not started: the host calls `services.mcp.start()` when it is ready for them.
 */
export function startServices(options: LifecycleOptions): ServicesLifecycle {
  const { onStopError, ...servicesOptions } = options;
  const services = createServices(servicesOptions);
  const inputs: StopStep[] = [];
  // Whatever ends the process without `stop()` (an uncaught error, process.exit elsewhere): no MCP server outlives us.
  const onExit = (): void => services.mcp.stopNow();
  process.on('exit', onExit);
  const serviceSteps: StopStep[] = SERVICE_STEPS.map(([name, run]) => ({ name, run: () => run(services) }));
  const shutdown = createShutdown(() => [...inputs, ...serviceSteps], onStopError);
  let stopped: Promise<StopReport> | undefined;
  const lifecycle: ServicesLifecycle = {
    services,
    get state() {
      return shutdown.state;
    },
    addInput(name, close) {
      if (shutdown.state !== 'running')
        throw new Error(`Cannot add the input "${name}": the services are ${shutdown.state}.`);
      inputs.push({ name: `input: ${name}`, run: close });
    },
    stop() {
      stopped ??= shutdown.run().then((report) => {
        untrack();
        // Servers that did not stop cleanly are still killed when the process exits.
        if (!report.failures.some((failure) => failure.step === 'mcp servers')) process.off('exit', onExit);
        return report;
      });
      return stopped;
    },
  };
  const untrack = trackRunning(lifecycle);
  return lifecycle;
}
