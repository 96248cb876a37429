/**
 * Browser mode: the main-process services behind a loopback HTTP + WebSocket server, for
 * machines where Electron cannot run. Never imports `electron`.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { version } from '../../package.json';
import { createDispatcher } from './host/dispatcher';
import { createHandlers } from './host/handlers';
import { startBrowserServer, type BrowserServer } from './host/browser-server';
import { openInDefaultBrowser } from './host/open-url';
import { createServices, isStartupProblem, type Services } from './services';
import { describeSettingsMigration } from './settings/settings-migrations';
import { resolveDataDir } from './settings/data-dir';

export const DEFAULT_BROWSER_PORT = 4790;

const USAGE = `Usage: ai-workbench-browser [--port N] [--no-open]

  --port N    listen on 127.0.0.1:N (0 = any free port; default ${DEFAULT_BROWSER_PORT}, or any free port when it is taken)
  --no-open   do not open the default browser
  --help      show this help

Data lives in WORKBENCH_HOME, or the OS app-data folder when it is not set.`;

interface BrowserModeOptions {
  port: number;
  portGiven: boolean;
  open: boolean;
}

function parseOptions(argv: string[]): BrowserModeOptions | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      open: { type: 'boolean', default: true },
      help: { type: 'boolean', default: false },
    },
    allowNegative: true,
    strict: true,
  });
  if (values.help) return null;
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
    throw new Error(`--port takes a number from 0 to 65535, not ${JSON.stringify(values.port)}.`);
  }
  const port = values.port === undefined ? DEFAULT_BROWSER_PORT : Number(values.port);
  if (port > 65535) throw new Error(`--port takes a number from 0 to 65535, not ${port}.`);
  return { port, portGiven: values.port !== undefined, open: values.open };
}

async function listen(services: Services, options: BrowserModeOptions): Promise<BrowserServer> {
  const dispatch = createDispatcher(createHandlers(services), (error, method) => {
    console.error(`[${method}]`, error);
  });
  const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
  const start = (port: number): Promise<BrowserServer> =>
    startBrowserServer({ dispatch, events: services.events, rendererDir, port, log: (line) => console.error(line) });
  try {
    return await start(options.port);
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!inUse) throw error;
    if (options.portGiven) throw new Error(`Port ${options.port} is in use. Choose another with --port N, or --port 0 for any free port.`, { cause: error });
    return start(0);
  }
}

async function main(): Promise<void> {
  let options: BrowserModeOptions | null;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) {
    console.log(USAGE);
    return;
  }
  let services: Services;
  try {
    services = createServices({
      dataDir: resolveDataDir(),
      host: 'browser',
      version,
      onListenerError: (error) => console.error(error),
      auditWorkerFile: fileURLToPath(new URL('./audit-worker.js', import.meta.url)),
    });
  } catch (error) {
    console.error(isStartupProblem(error) ? `AI Workbench cannot start: ${error.message}` : error);
    process.exit(1);
  }
  if (services.settings.migration) for (const line of describeSettingsMigration(services.settings.migration)) console.error(line);
  const server = await listen(services, options).catch((error: unknown) => {
    console.error(`AI Workbench cannot start: ${(error as Error).message}`);
    services.close();
    process.exit(1);
  });
  // Listen for signals before announcing readiness: whoever reads the line may stop us at once.
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    // MCP servers first: their process trees must be gone before we are.
    void Promise.allSettled([services.conversations.dispose(), services.mcp.stop(), server.close(), services.auditShipping.stop()]).finally(() => {
      services.close();
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Whatever ends the process another way (an uncaught error, process.exit elsewhere): no server outlives us.
  process.on('exit', () => services.mcp.stopNow());
  // The servers start in the background; the app is usable meanwhile and shows their status as it changes.
  services.mcp.start();
  // Audit rows go to the organisation's log pipeline, if the settings name one (issue 15; src/main/audit/shipping).
  services.auditShipping.start();

  console.log(`AI Workbench (browser mode) ready at ${server.url}`);
  if (options.open) openInDefaultBrowser(server.url);
}

void main();
