/**
 * Browser mode: the main-process services behind a loopback HTTP + WebSocket server, for
 * machines where Electron cannot run. Never imports `electron`.
 */
import { parseArgs } from 'node:util';
import { version } from '../../package.json';
import { builtAssets } from './assets';
import { createDispatcher } from './host/dispatcher';
import { createHandlers } from './host/handlers';
import { startBrowserServer, type BrowserServer } from './host/browser-server';
import { openInDefaultBrowser, writeRedirectPage, type RedirectPage } from './host/open-url';
import { startServices, type ServicesLifecycle } from './lifecycle';
import { WINDOW_START_DEFER_MS } from './mcp/mcp-host';
import { exitOnSignals } from './shutdown';
import { isStartupProblem, type Services } from './services';
import { describeSettingsMigration } from './settings/settings-migrations';
import { resolveDataDir } from './settings/data-dir';
import { describeDataFolderRepair } from './storage/owner-only';

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
  const { rendererDir } = builtAssets();
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
  let lifecycle: ServicesLifecycle;
  try {
    lifecycle = startServices({
      dataDir: resolveDataDir(),
      host: 'browser',
      version,
      // An MCP server's OAuth sign-in page: its address holds no secret (PKCE protects the code), so it goes as is.
      openSignInPage: (url) => openInDefaultBrowser(url),
      onListenerError: (error) => console.error(error),
      onStopError: (step, error) => console.error(`Stopping ${step} failed:`, error),
    });
  } catch (error) {
    console.error(isStartupProblem(error) ? `AI Workbench cannot start: ${error.message}` : error);
    process.exit(1);
  }
  const { services } = lifecycle;
  const repaired = describeDataFolderRepair(services.dataFolderRepair);
  if (repaired) console.error(repaired);
  if (services.settings.migration) for (const line of describeSettingsMigration(services.settings.migration)) console.error(line);
  const server = await listen(services, options).catch(async (error: unknown) => {
    console.error(`AI Workbench cannot start: ${(error as Error).message}`);
    await lifecycle.stop();
    process.exit(1);
  });
  let redirectPage: RedirectPage | null = null;
  // The page that carries the token goes first (it is a way in), then the server.
  lifecycle.addInput('redirect page', () => redirectPage?.remove());
  lifecycle.addInput('browser-mode server', () => server.close());
  // Listen for signals before announcing readiness: whoever reads the line may stop us at once.
  exitOnSignals({ signals: { SIGINT: 0, SIGTERM: 0 }, stop: () => lifecycle.stop() });
  // Whatever ends the process another way (an uncaught error, process.exit elsewhere); the lifecycle's own exit
  // guard stops the MCP servers.
  process.on('exit', () => redirectPage?.remove());
  // Announced before the servers and the shipping start, which take some ms of CPU: the page can load meanwhile.
  console.log(`AI Workbench (browser mode) ready at ${server.url}`);
  // The servers start in the background; the app is usable meanwhile and shows their status as it changes. Those
  // whose tools are known from the last launch wait until the first screen is up (or something needs them).
  services.mcp.start({ deferMs: WINDOW_START_DEFER_MS });
  // Audit rows go to the organisation's log pipeline, if the settings name one (issue 15; src/main/audit/shipping).
  services.auditShipping.start();
  // The browser gets a page only the owner can read that redirects to the address: the token stays off
  // every command line (docs/user/browser-mode.md, "Browser mode's token").
  if (options.open) {
    try {
      redirectPage = writeRedirectPage(services.dataDir, server.url);
      if (!openInDefaultBrowser(redirectPage.fileUrl)) {
        redirectPage.remove();
        redirectPage = null;
      }
    } catch (error) {
      console.error(`Could not open a browser (${(error as Error).message}); open the address above.`);
    }
  }
}

void main();
