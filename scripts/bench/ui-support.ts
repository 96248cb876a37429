/** What the UI benchmarks share: a data folder seeded through the real services, and Chromium on the built renderer. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from '@playwright/test';
import { createServices, type Services } from '../../src/main/services.ts';
import playwrightConfig from '../../playwright.config.ts';
import { startBrowserMode, type BrowserModeProcess } from './browser-mode-process.ts';

/** A fresh data folder, set up by `seed` through the real services (closed again before browser mode opens it). */
export async function seededHome(seed: (services: Services, home: string) => void | Promise<void>): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-ui-bench-'));
  const services = createServices({ dataDir: home, host: 'cli', version: '0.0.0-bench', managedPolicyFile: null });
  try {
    await seed(services, home);
  } finally {
    await services.conversations.dispose();
    services.close();
  }
  return home;
}

export interface UiSession {
  server: BrowserModeProcess;
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** Browser mode on `home`, and the app open in Chromium (the e2e tests' launch options). */
export async function openUi(home: string): Promise<UiSession> {
  const server = await startBrowserMode(home);
  const browser = await chromium.launch(playwrightConfig.use?.launchOptions ?? {});
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(server.url);
    return {
      server,
      browser,
      page,
      async close() {
        await browser.close();
        await server.stop();
      },
    };
  } catch (error) {
    await browser.close();
    await server.stop();
    throw error;
  }
}

export function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

/**
 * With UI_PROFILE set, samples the page's JavaScript until the returned function is called, then prints the
 * functions that took the most time (self time) to stderr: where to look when a UI benchmark fails.
 */
export async function profileIfAsked(cdp: CDPSession): Promise<() => Promise<void>> {
  if (!process.env['UI_PROFILE']) return async () => {};
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return async () => {
    const { profile } = await cdp.send('Profiler.stop');
    const self = new Map<string, number>();
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const deltas = profile.timeDeltas ?? [];
    (profile.samples ?? []).forEach((id, index) => {
      const node = byId.get(id);
      if (!node) return;
      const key = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop() ?? ''}:${node.callFrame.lineNumber}`;
      self.set(key, (self.get(key) ?? 0) + (deltas[index] ?? 0) / 1000);
    });
    const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 30);
    console.error(top.map(([key, ms]) => `${ms.toFixed(0).padStart(7)} ms ${key}`).join('\n'));
  };
}
