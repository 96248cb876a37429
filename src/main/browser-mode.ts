/**
 * Browser mode: the main-process services behind a loopback HTTP + WebSocket server, for
 * machines where Electron cannot run. Never imports `electron`.
 */
import { parseArgs } from 'node:util';
import { builtAssets } from './assets';
import type { BrowserModeServices } from './browser-mode-services';
import { startBrowserServer, type BrowserBackend, type BrowserServer } from './host/browser-server';
import { openInDefaultBrowser, writeRedirectPage, type RedirectPage } from './host/open-url';
import { listenPreferred } from './browser-listen';
import { exitOnSignals } from './shutdown';
import { resolveDataDir } from './settings/data-dir';

export const DEFAULT_BROWSER_PORT = 4790;
/** How long the services wait for a page to ask for its shell before they start anyway (see `main`). */
const SERVICES_WAIT_MS = 100;

const USAGE = `Usage: ai-workbench-browser [--port N] [--no-open]

  --port N    listen on 127.0.0.1:N (0 = any free port). Default: the port this data folder used last
              (first ${DEFAULT_BROWSER_PORT}), or any free port when it is taken, kept for the next start
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

function listen(
  backend: Promise<BrowserBackend>,
  onShellServed: () => void,
  options: BrowserModeOptions,
  dataDir: string,
): Promise<BrowserServer> {
  const { rendererDir } = builtAssets();
  return listenPreferred({
    dataDir,
    fallback: DEFAULT_BROWSER_PORT,
    given: options.portGiven ? options.port : undefined,
    start: (port) =>
      startBrowserServer({ backend, onShellServed, rendererDir, port, log: (line) => console.error(line) }),
    boundPort: (server) => Number(new URL(server.url).port),
  });
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
  const dataDir = resolveDataDir();
  // The services load and start while the page loads: they take most of the start (~200 ms of CPU here), and a call
  // waits for them. Loading them holds the server up, so they wait until it sent the page's shell, which a browser
  // then works on for a while before it asks for more, or SERVICES_WAIT_MS when no page comes sooner
  // (docs/dev/benchmarks.md, app-start).
  let shellServed = (): void => {};
  const shellOrWait = new Promise<void>((resolve) => {
    shellServed = resolve;
    setTimeout(resolve, SERVICES_WAIT_MS);
  });
  const starting: Promise<BrowserModeServices | null> = shellOrWait
    .then(() => import('./browser-mode-services'))
    .then(({ startBrowserModeServices }) => startBrowserModeServices(dataDir));
  const backend = starting.then(
    (started) => started?.backend ?? Promise.reject(new Error('the services did not start')),
  );
  // Said below, from `starting`; the page's calls are answered `unavailable`.
  backend.catch(() => {});
  const server = await listen(backend, () => shellServed(), options, dataDir).catch((error: unknown) => {
    console.error(`AI Workbench cannot start: ${(error as Error).message}`);
    process.exit(1);
  });
  let redirectPage: RedirectPage | null = null;
  // Listen for signals before announcing readiness: whoever reads the line may stop us at once. The services stop
  // once started: the page that carries the token goes first (it is a way in), then the server, then the rest.
  exitOnSignals({
    signals: { SIGINT: 0, SIGTERM: 0 },
    stop: async () => {
      const started = await starting.catch(() => null);
      if (started) await started.lifecycle.stop();
      else await server.close();
    },
  });
  // Whatever ends the process another way (an uncaught error, process.exit elsewhere); the lifecycle's own exit
  // guard stops the MCP servers.
  process.on('exit', () => redirectPage?.remove());
  const started = await starting.catch((error: unknown) => {
    console.error('AI Workbench cannot start:', error);
    return null;
  });
  if (!started) {
    await server.close();
    process.exit(1);
  }
  // Ready only now: the services started, the organisation's policy among them (a bad one stops the start above,
  // and no "ready" line may have sent anyone to a server that is about to go) — docs/user/browser-mode.md.
  console.log(`AI Workbench (browser mode) ready at ${server.url}`);
  started.lifecycle.addInput('redirect page', () => redirectPage?.remove());
  started.lifecycle.addInput('browser-mode server', () => server.close());
  started.startBackground();
  // The browser gets a page only the owner can read that redirects to the address: the token stays off
  // every command line (docs/user/browser-mode.md, "Browser mode's token").
  if (options.open) {
    try {
      redirectPage = writeRedirectPage(dataDir, server.url);
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
