import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, protocol, session, type IpcMainInvokeEvent } from 'electron';
import { EVENT_CHANNEL } from '../../shared/ipc';
import { version } from '../../../package.json';
import { securityHeaders } from '../host/csp';
import { createDispatcher } from '../host/dispatcher';
import { createHandlers } from '../host/handlers';
import { registerIpcHandlers } from '../host/ipc-adapter';
import { readStaticFile } from '../host/static-files';
import { createServices, type Services } from '../services';
import { resolveDataDir } from '../settings/data-dir';
import { APP_ENTRY_URL, APP_HOST, APP_SCHEME, isAppUrl, mainWindowOptions } from './window-options';

const here = path.dirname(fileURLToPath(import.meta.url));
const rendererDir = path.join(here, '../renderer');
const preloadPath = path.join(here, '../preload/index.cjs');
const devServerUrl = process.env.ELECTRON_RENDERER_URL;

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

let mainWindow: BrowserWindow | null = null;

function createWindow(): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(preloadPath));
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url, devServerUrl)) event.preventDefault();
  });
  window.once('ready-to-show', () => window.show());
  void window.loadURL(devServerUrl ?? APP_ENTRY_URL);
  window.on('closed', () => {
    if (mainWindow === window) mainWindow = null;
  });
  return window;
}

function serveRenderer(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const file = url.host === APP_HOST ? await readStaticFile(rendererDir, url.pathname) : null;
    if (!file) return new Response('Not found', { status: 404, headers: securityHeaders() });
    return new Response(new Uint8Array(file.body), { headers: { ...securityHeaders(), 'Content-Type': file.contentType } });
  });
}

function wireContract(services: Services): void {
  const dispatch = createDispatcher(createHandlers(services), (error, method) => console.error(`[${method}]`, error));
  registerIpcHandlers<IpcMainInvokeEvent>(ipcMain, dispatch, (event) => {
    const frameUrl = event.senderFrame?.url ?? '';
    return BrowserWindow.fromWebContents(event.sender) !== null && isAppUrl(frameUrl, devServerUrl);
  });
  services.events.subscribe((event, payload) => {
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(EVENT_CHANNEL, { event, payload });
  });
}

function start(): void {
  app.setName('AI Workbench');
  // The single-instance lock lives in userData: set it first, so an instance on another
  // WORKBENCH_HOME (a test run, a second profile) does not collide with this one.
  const dataDir = resolveDataDir();
  app.setPath('userData', dataDir);
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });

  void app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
    let services: Services;
    try {
      services = createServices({
        dataDir,
        host: 'electron',
        version,
        versions: { electron: process.versions.electron, chrome: process.versions.chrome },
        onListenerError: (error) => console.error(error),
        auditWorkerFile: path.join(here, 'audit-worker.js'),
      });
    } catch (error) {
      dialog.showErrorBox('AI Workbench cannot start', error instanceof Error ? error.message : String(error));
      app.exit(1);
      return;
    }
    serveRenderer();
    wireContract(services);
    mainWindow = createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
    });
    app.on('will-quit', () => services.close());
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}

start();
