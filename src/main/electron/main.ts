import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
  type IpcMainInvokeEvent,
  type WebContents,
  type WebFrameMain,
} from 'electron';
import Store from 'electron-store';
import { EVENT_CHANNEL } from '../../shared/ipc';
import { APP_NAME } from '../../shared/app-name';
import { version } from '../../../package.json';
import { builtAssets } from '../assets';
import { securityHeaders } from '../host/csp';
import { openThroughRedirectPage } from '../host/open-url';
import { createDispatcher, type Dispatch } from '../host/dispatcher';
import { createHandlers } from '../host/handlers';
import { registerIpcHandlers } from '../host/ipc-adapter';
import { createStaticFiles } from '../host/static-files';
import { startServices, type ServicesLifecycle } from '../lifecycle';
import { WINDOW_START_DEFER_MS } from '../mcp/mcp-host';
import { isStartupProblem, type Services } from '../services';
import { resolveDataDir } from '../settings/data-dir';
import { describeSettingsMigration } from '../settings/settings-migrations';
import { plainCipher } from '../settings/secret-store';
import type { DesktopSettings } from '../../shared/desktop';
import type { SettingsSection } from '../settings/settings-store';
import { describeDataFolderRepair, OWNER_ONLY_FILE } from '../storage/owner-only';
import { aboutPanelOptions, appMenuTemplate } from './app-menu';
import { openDesktopSettings } from './desktop-settings';
import { startDesktopShell } from './desktop-shell';
import { safeStorageCipher } from './safe-storage-cipher';
import {
  externalLinkPrompt,
  frameNavigationVerdict,
  isTrustedIpcSender,
  navigationVerdict,
  permissionGranted,
  type WindowOrigins,
} from './security-policy';
import { registerAppFrameUrl, startWindowViewFrames, type WindowViewFrames } from './view-frames';
import { restorableBounds, type WindowState } from './window-state';
import { APP_ENTRY_URL, APP_HOST, APP_SCHEME, mainWindowOptions } from './window-options';

const assets = builtAssets();
const rendererDir = assets.rendererDir;
const preloadPath = assets.preload;
const devServerUrl = process.env.ELECTRON_RENDERER_URL;

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

let mainWindow: BrowserWindow | null = null;
/** With the tray icon on, closing the window keeps the app running there (approvals still notify, quick chat still opens). */
let keepRunningInTray = (): boolean => false;
let showMainWindowOnRequest: (() => void) | null = null;
let quitting = false;
/** Where the window's pages and their views' frames come from; the frame origin is added once it started. */
let windowOrigins: WindowOrigins = { devServerUrl, viewFrameOrigins: [] };

/**
 * An MCP server's sign-in page, at the person's request (Sign in); its address was checked to be https or loopback.
 * shell.openExternal would put the address on xdg-open's command line: it goes through an owner-only redirect page.
 */
function openSignInPage(dataDir: string, url: string): boolean {
  // False where no browser can be opened: the app then shows the address to copy.
  return openThroughRedirectPage(dataDir, url);
}

/** Links leave the app only as http(s), only to the default browser, and only after the person agrees. */
async function offerExternally(owner: BrowserWindow | null, url: string): Promise<void> {
  const prompt = externalLinkPrompt(url);
  const { response } = owner ? await dialog.showMessageBox(owner, prompt) : await dialog.showMessageBox(prompt);
  if (response === 0) await shell.openExternal(url);
}

function guardNavigation(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (navigationVerdict(url, devServerUrl) === 'open-externally-after-confirmation') {
      void offerExternally(BrowserWindow.fromWebContents(contents), url);
    }
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    const { url } = event;
    // Only our own page (or no frame) navigates the window; a view's frames never do (docs/user/mcp-apps.md).
    const verdict = frameNavigationVerdict(
      { url, isMainFrame: true, initiatorUrl: frameUrlOf(event.initiator) },
      windowOrigins,
    );
    if (verdict === 'allow') return;
    event.preventDefault();
    if (verdict === 'open-externally-after-confirmation')
      void offerExternally(BrowserWindow.fromWebContents(contents), url);
  });
  // A frame in the window loads the app frame origin's proxy page or a view's srcdoc, nothing else.
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame) return;
    if (frameNavigationVerdict({ url: event.url, isMainFrame: false }, windowOrigins) !== 'allow')
      event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // A crashed renderer loses nothing (all state lives in main): offer to reload it.
  contents.on('render-process-gone', (_event, details) => {
    if (details.reason === 'clean-exit') return;
    const owner = BrowserWindow.fromWebContents(contents);
    void dialog
      .showMessageBox({
        type: 'error',
        message: 'The AI Workbench window stopped unexpectedly.',
        detail: `Reason: ${details.reason}. Your chats and settings are safe. Reload the window to continue.`,
        buttons: ['Reload', 'Close window'],
        defaultId: 0,
      })
      .then(({ response }) => (response === 0 ? contents.reload() : owner?.destroy()));
  });
}

/** The URL of the frame that started a navigation; '' for one already gone (refused like any frame not our page). */
function frameUrlOf(frame: WebFrameMain | null | undefined): string | undefined {
  if (!frame) return undefined;
  try {
    return frame.url;
  } catch {
    return '';
  }
}

function createWindow(windowStore: Store<WindowState>): BrowserWindow {
  const saved = windowStore.get('bounds');
  const bounds = restorableBounds(
    saved,
    screen.getAllDisplays().map((display) => display.workArea),
  );
  // Its webContents is guarded by the 'web-contents-created' hook, like every other.
  const window = new BrowserWindow({ ...mainWindowOptions(preloadPath), ...bounds });
  window.once('ready-to-show', () => {
    if (windowStore.get('maximized')) window.maximize();
    window.show();
  });
  const remember = (): void => {
    windowStore.set('maximized', window.isMaximized());
    if (!window.isMaximized() && !window.isMinimized()) windowStore.set('bounds', window.getBounds());
  };
  window.on('close', remember);
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null;
    // A hidden quick chat window would otherwise keep the app alive with nothing on screen.
    if (!quitting && process.platform !== 'darwin' && !keepRunningInTray()) app.quit();
  });
  void window.loadURL(devServerUrl ?? APP_ENTRY_URL);
  return window;
}

/** Our pages, under a policy that lets them frame the view frames' origin alone (view-frames.ts). */
function serveRenderer(viewFrames: Promise<WindowViewFrames>): void {
  const files = createStaticFiles(rendererDir);
  protocol.handle(APP_SCHEME, async (request) => {
    const headers = securityHeaders([], (await viewFrames).frameSources);
    const url = new URL(request.url);
    const file = url.host === APP_HOST ? await files.read(url.pathname) : null;
    if (!file) return new Response('Not found', { status: 404, headers });
    return new Response(new Uint8Array(file.body), { headers: { ...headers, 'Content-Type': file.contentType } });
  });
}

/**
 * Frames share their window's session, so every permission a frame asks for comes here, judged by the frame that asks
 * (its URL, whether it is the main frame), never by the window's page: a view's frames get none.
 */
function lockDownSession(): void {
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(
      permissionGranted(permission, { url: details.requestingUrl, isMainFrame: details.isMainFrame }, windowOrigins),
    ),
  );
  session.defaultSession.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    permissionGranted(
      permission,
      { url: details.requestingUrl ?? requestingOrigin, isMainFrame: details.isMainFrame },
      windowOrigins,
    ),
  );
}

/** Returns what stops the contract's traffic: the IPC handlers and the event forwarding. */
function wireContract(services: Services, dispatch: Dispatch, viewFrames: Promise<WindowViewFrames>): () => void {
  const isTrusted = (event: IpcMainInvokeEvent): boolean =>
    isTrustedIpcSender(
      {
        frameUrl: event.senderFrame?.url,
        isMainFrame: event.senderFrame !== null && event.senderFrame?.parent === null,
        isOwnWindow: BrowserWindow.fromWebContents(event.sender) !== null,
      },
      devServerUrl,
    );
  const removeHandlers = registerIpcHandlers<IpcMainInvokeEvent>(ipcMain, dispatch, isTrusted);
  const removeFrameUrl = registerAppFrameUrl<IpcMainInvokeEvent>(ipcMain, viewFrames, isTrusted);
  const unsubscribe = services.events.subscribe((event, payload) => {
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(EVENT_CHANNEL, { event, payload });
  });
  return () => {
    removeHandlers();
    removeFrameUrl();
    unsubscribe();
  };
}

function cannotStart(error: unknown): void {
  const message = isStartupProblem(error) ? error.message : String(error instanceof Error ? error.stack : error);
  dialog.showErrorBox('AI Workbench cannot start', message);
  app.exit(1);
}

function start(): void {
  app.setName(APP_NAME);
  // The single-instance lock lives in userData: set it first, so an instance on another
  // WORKBENCH_HOME (a test run, a second profile) does not collide with this one.
  const dataDir = resolveDataDir();
  app.setPath('userData', dataDir);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('second-instance', () => {
    // Also when the window was closed into the tray: a second launch brings it back.
    if (!mainWindow) {
      if (app.isReady() && showMainWindowOnRequest) showMainWindowOnRequest();
      return;
    }
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('web-contents-created', (_event, contents) => guardNavigation(contents));

  void app.whenReady().then(async () => {
    lockDownSession();
    app.setAboutPanelOptions(aboutPanelOptions(APP_NAME, version, process.versions));
    Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform, APP_NAME)));
    const keychain = safeStorageCipher(safeStorage);
    if (!keychain)
      console.warn('The OS offers no keychain encryption here: secrets are kept in an owner-only file instead.');
    let lifecycle: ServicesLifecycle;
    let desktop: SettingsSection<DesktopSettings>;
    try {
      lifecycle = startServices({
        dataDir,
        host: 'electron',
        version,
        versions: { electron: process.versions.electron, chrome: process.versions.chrome },
        secretCiphers: keychain ? [keychain, plainCipher] : [plainCipher],
        // An MCP server's OAuth sign-in page (https or loopback only, checked in src/main/mcp/oauth) in the system browser.
        openSignInPage: (url) => openSignInPage(dataDir, url),
        onListenerError: (error) => console.error(error),
        onStopError: (step, error) => console.error(`Stopping ${step} failed:`, error),
      });
    } catch (error) {
      cannotStart(error);
      return;
    }
    const { services } = lifecycle;
    try {
      desktop = openDesktopSettings(services.settings);
    } catch (error) {
      await lifecycle.stop();
      cannotStart(error);
      return;
    }
    const repaired = describeDataFolderRepair(services.dataFolderRepair);
    if (repaired) {
      console.error(repaired);
      void dialog.showMessageBox({ type: 'info', message: 'Your data folder is now private', detail: repaired });
    }
    const migration = services.settings.migration;
    if (migration) {
      const lines = describeSettingsMigration(migration);
      for (const line of lines) console.error(line);
      // Notes change what runs without asking: the person should read them, once, without blocking the start.
      if (migration.notes.length > 0)
        void dialog.showMessageBox({ type: 'info', message: 'Your settings were updated', detail: lines.join('\n\n') });
    }
    const dispatch = createDispatcher(createHandlers(services), (error, method) => console.error(`[${method}]`, error));
    // MCP Apps views run on the app frame origin, as in browser mode (docs/user/mcp-apps.md#how-a-view-is-shown).
    const viewFrames = startWindowViewFrames({
      pageUrl: devServerUrl ?? APP_ENTRY_URL,
      dispatch,
      frameSlots: () => services.appFrameSlots,
      log: (line) => console.error(line),
    });
    void viewFrames.then((frames) => {
      windowOrigins = { devServerUrl, viewFrameOrigins: frames.viewFrameOrigins };
    });
    serveRenderer(viewFrames);
    lifecycle.addInput('contract over IPC', wireContract(services, dispatch, viewFrames));
    lifecycle.addInput('view frames', async () => (await viewFrames).close());
    const windowStore = new Store<WindowState>({
      name: 'window-state',
      cwd: dataDir,
      defaults: { maximized: false },
      configFileMode: OWNER_ONLY_FILE,
    });
    mainWindow = createWindow(windowStore);
    const showMainWindow = (): BrowserWindow => {
      const window = mainWindow ?? (mainWindow = createWindow(windowStore));
      if (window.isMinimized()) window.restore();
      window.show();
      window.focus();
      return window;
    };
    const shell = startDesktopShell({
      services,
      desktop,
      preloadPath,
      iconPath: app.isPackaged ? path.join(process.resourcesPath, 'icon.png') : assets.icon,
      devServerUrl,
      showMainWindow,
      mainWindow: () => mainWindow,
      setAppMenu: (quickChat) =>
        Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(process.platform, APP_NAME, quickChat))),
    });
    lifecycle.addInput('desktop shell', () => shell.dispose());
    keepRunningInTray = () => desktop.get().tray;
    showMainWindowOnRequest = () => void showMainWindow();
    // In the background: the window is usable while the MCP servers start. Bundled servers run on this
    // binary as Node (ELECTRON_RUN_AS_NODE=1, see src/main/mcp/node-runtime.ts).
    // Those whose tools are known from the last launch wait until the window's first screen is up (or a message).
    services.mcp.start({ deferMs: WINDOW_START_DEFER_MS });
    // Audit rows go to the organisation's log pipeline, if the settings name one (docs/user/audit-shipping.md;
    // src/main/audit/shipping).
    services.auditShipping.start();
    // settings.json changed by hand while the app runs is read again (docs/user/data.md, "Editing settings.json").
    services.settingsWatch.start();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow(windowStore);
    });
    app.on('will-quit', (event) => {
      if (lifecycle.state === 'stopped') return;
      // Hold the quit until the services stopped in order (every MCP server's process tree gone), then quit for real.
      event.preventDefault();
      if (lifecycle.state === 'stopping') return;
      void lifecycle.stop().then(() => app.quit());
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin' && !keepRunningInTray()) app.quit();
  });
}

start();
