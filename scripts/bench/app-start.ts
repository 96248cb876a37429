/**
 * The first screen (docs/dev/benchmarks.md).
 *
 * `app-start`: from spawning browser mode on a data folder with 1,000 chats and 10 MCP servers until, in
 * Chromium, the chat list is painted and the composer accepts input. Against a floor in the same run: a bare Node
 * HTTP server process spawned the same way, serving a page that already holds a list of 1,000 chats and a text box,
 * timed to the same condition. Starts alternate with the floor's; each opens in a fresh browser context (no HTTP
 * cache, no saved tabs), like a first visit. Goals: ≤ 1.5 s, and ≤ 3× the floor.
 *
 * `renderer-first-load`: the JavaScript (decoded bytes) the page fetched by the time its first screen was ready.
 * Goal ≤ 500 KB.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import playwrightConfig from '../../playwright.config.ts';
import { startBrowserMode } from './browser-mode-process.ts';
import type { Benchmark, NamedBenchMeasurement } from './harness.ts';
import { median } from './mcp-setup.ts';
import { loadAverage, seededHome } from './ui-support.ts';

const CHATS = 1_000;
const SERVERS = 10;
const RUNS = Number(process.env['APP_START_RUNS'] ?? 5);

/** Resolves (in page time, epoch ms) once the chat list has an item and the message box is enabled, then painted. */
const READY_PROBE = `window.__firstScreen = new Promise((resolve) => {
  const check = () => {
    const items = document.querySelectorAll('nav[aria-label="Chats"] .chat-item-title');
    const input = document.querySelector('textarea[aria-label="Message"]');
    if (items.length > 0 && input && !input.disabled) requestAnimationFrame(() => resolve(performance.timeOrigin + performance.now()));
    else requestAnimationFrame(check);
  };
  check();
});`;

/** The floor: a bare Node HTTP server whose one page holds what the first screen shows, as static HTML. */
function floorServerSource(): string {
  const items = Array.from(
    { length: CHATS },
    (_, index) => `<li><button class="chat-item-title">Chat ${index + 1}</button></li>`,
  ).join('');
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body style="display:flex;margin:0;font:14px system-ui">
<nav aria-label="Chats" style="width:260px;height:100vh;overflow:auto"><ul>${items}</ul></nav>
<main style="flex:1;display:flex;flex-direction:column;justify-content:flex-end"><textarea aria-label="Message" rows="1"></textarea></main></body></html>`;
  return `const http = require('node:http');
const page = ${JSON.stringify(page)};
const server = http.createServer((request, response) => { response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); response.end(page); });
server.listen(0, '127.0.0.1', () => console.log('ready at http://127.0.0.1:' + server.address().port + '/'));
process.on('SIGTERM', () => process.exit(0));`;
}

interface Started {
  url: string;
  stop(): Promise<void>;
}

function startFloorServer(): Promise<Started> {
  const child = spawn(process.execPath, ['-e', floorServerSource()], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /ready at (http:\/\/\S+)/.exec(stdout);
      if (match?.[1])
        resolve({
          url: match[1],
          stop: async () => {
            const exited = new Promise((done) => child.once('exit', done));
            child.kill('SIGTERM');
            await exited;
          },
        });
    });
    child.on('exit', (code) => reject(new Error(`the floor server exited with code ${code}`)));
  });
}

/** 1,000 chats (the newest with one Markdown exchange) and 10 servers: the default Files and 9 more like it. */
async function seed(): Promise<string> {
  return seededHome((services, home) => {
    for (let index = 0; index < CHATS; index++) services.chats.create({ title: `Chat ${index + 1}` });
    for (let index = 1; index < SERVERS; index++) {
      const folder = path.join(home, `folder-${index}`);
      fs.mkdirSync(folder);
      services.mcpServers.add(`Files${index}`, { package: '@modelcontextprotocol/server-filesystem', args: [folder] });
    }
  });
}

interface Launch {
  ms: number;
  scriptBytes: number;
  scripts: number;
}

/**
 * Spawns `start` and opens what it serves in a fresh context: time from the spawn to the first screen. `stayMs`
 * keeps it running that much longer before it stops.
 */
async function launch(browser: Browser, start: () => Promise<Started>, stayMs = 0): Promise<Launch> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await context.addInitScript(READY_PROBE);
  const page = await context.newPage();
  const scripts: Promise<number>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script')
      scripts.push(
        response.body().then(
          (body) => body.length,
          () => 0,
        ),
      );
  });
  const spawned = Date.now();
  const server = await start();
  try {
    await page.goto(server.url);
    const readyAt = (await page.evaluate('window.__firstScreen')) as number;
    // What the page asked for before its first screen was ready (a chunk loaded later is not counted).
    const sizes = await Promise.all(scripts.slice());
    if (stayMs > 0) await new Promise((resolve) => setTimeout(resolve, stayMs));
    return { ms: readyAt - spawned, scriptBytes: sizes.reduce((sum, size) => sum + size, 0), scripts: sizes.length };
  } finally {
    await context.close();
    await server.stop();
  }
}

async function withFixture<T>(body: (browser: Browser, home: string) => Promise<T>): Promise<T> {
  const home = await seed();
  const browser = await chromium.launch(playwrightConfig.use?.launchOptions ?? {});
  try {
    return await body(browser, home);
  } finally {
    await browser.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const startApp = (home: string) => (): Promise<Started> => startBrowserMode(home, { keepHome: true });

export const appStart: Benchmark = {
  name: 'app-start',
  description: `browser mode spawned on ${CHATS} chats and ${SERVERS} servers until the chat list is painted and the composer accepts input, against a bare Node HTTP server's page (median of ${RUNS} alternating pairs)`,
  async run(): Promise<NamedBenchMeasurement[]> {
    return withFixture(async (browser, home) => {
      // One start of each first, not counted: the disk cache and Chromium's own first-launch work. The app's stays
      // up a few seconds, as a person's last session did, so that its servers listed their tools (a launch then
      // offers those while its servers wait for the first screen: docs/user/mcp-servers.md).
      await launch(browser, startApp(home), 4000);
      await launch(browser, startFloorServer);
      const app: number[] = [];
      const floor: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        if (run % 2 === 0) {
          app.push((await launch(browser, startApp(home))).ms);
          floor.push((await launch(browser, startFloorServer)).ms);
        } else {
          floor.push((await launch(browser, startFloorServer)).ms);
          app.push((await launch(browser, startApp(home))).ms);
        }
      }
      const appMs = median(app);
      const floorMs = median(floor);
      const load = loadAverage();
      console.error(
        `app-start: app ${app.map(Math.round).join(', ')} ms; floor ${floor.map(Math.round).join(', ')} ms; load average ${load}`,
      );
      const details = { appMs, floorMs, runs: RUNS, chats: CHATS, servers: SERVERS, load1: Number(load.split(' ')[0]) };
      return [
        { name: 'app-start', value: appMs / 1000, unit: 's', goal: { op: '<=', value: 1.5 }, details },
        { name: 'app-start-vs-floor', value: appMs / floorMs, unit: '× floor', goal: { op: '<=', value: 3 }, details },
      ];
    });
  },
};

export const rendererFirstLoad: Benchmark = {
  name: 'renderer-first-load',
  description: 'KB of JavaScript the page loads before its first screen (chat list and composer) is ready',
  async run(): Promise<NamedBenchMeasurement[]> {
    return withFixture(async (browser, home) => {
      const { scriptBytes, scripts } = await launch(browser, startApp(home));
      console.error(`renderer-first-load: ${scripts} scripts, ${scriptBytes} bytes`);
      return [
        {
          name: 'renderer-first-load',
          value: scriptBytes / 1024,
          unit: 'KB',
          goal: { op: '<=', value: 500 },
          details: { scriptBytes, scripts },
        },
      ];
    });
  },
};
