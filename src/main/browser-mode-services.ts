/**
 * Browser mode's services, loaded once its server listens (browser-mode.ts): the contract's schemas, the database
 * and the rest take most of its start, and the page loads meanwhile (docs/dev/benchmarks.md, app-start).
 */
import { version } from '../../package.json';
import { createDispatcher } from './host/dispatcher';
import { createHandlers } from './host/handlers';
import { openThroughRedirectPage } from './host/open-url';
import type { BrowserBackend } from './host/browser-server';
import { startServices, type ServicesLifecycle } from './lifecycle';
import { WINDOW_START_DEFER_MS } from './mcp/mcp-host';
import { isStartupProblem } from './services';
import { describeSettingsMigration } from './settings/settings-migrations';
import { describeDataFolderRepair } from './storage/owner-only';

export interface BrowserModeServices {
  lifecycle: ServicesLifecycle;
  backend: BrowserBackend;
  /** Starts the MCP servers and the audit shipping, in the background. */
  startBackground(): void;
}

/** Null when they cannot start: why went to stderr. */
export function startBrowserModeServices(dataDir: string): BrowserModeServices | null {
  let lifecycle: ServicesLifecycle;
  try {
    lifecycle = startServices({
      dataDir,
      host: 'browser',
      version,
      // An MCP server's OAuth sign-in page, through an owner-only redirect page: its address stays off the command line.
      openSignInPage: (url) => openThroughRedirectPage(dataDir, url),
      onListenerError: (error) => console.error(error),
      onStopError: (step, error) => console.error(`Stopping ${step} failed:`, error),
    });
  } catch (error) {
    console.error(isStartupProblem(error) ? `AI Workbench cannot start: ${error.message}` : error);
    return null;
  }
  const { services } = lifecycle;
  const repaired = describeDataFolderRepair(services.dataFolderRepair);
  if (repaired) console.error(repaired);
  if (services.settings.migration)
    for (const line of describeSettingsMigration(services.settings.migration)) console.error(line);
  const dispatch = createDispatcher(createHandlers(services), (error, method) => {
    console.error(`[${method}]`, error);
  });
  return {
    lifecycle,
    backend: { dispatch, events: services.events, frameSlots: services.appFrameSlots },
    startBackground() {
      // The servers start in the background; the app is usable meanwhile and shows their status as it changes.
      // Those whose tools are known from the last launch wait until the first screen is up (or something needs them).
      services.mcp.start({ deferMs: WINDOW_START_DEFER_MS });
      // Audit rows go to the organisation's log pipeline, if the settings name one (docs/user/audit-shipping.md;
      // src/main/audit/shipping).
      services.auditShipping.start();
      // settings.json changed by hand while the app runs is read again (docs/user/data.md, "Editing settings.json").
      services.settingsWatch.start();
    },
  };
}
