import { defineConfig } from '@playwright/test';

/** Debian's Chromium (docs/dev/toolchain.md): Playwright cannot download its own browser on these machines. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/e2e',
  // Upper bounds, never measurements: the same suite took 4.5 min on one day's machine and 17 min on another's,
  // where `node -e 0` took 65 ms instead of 25 (docs/dev/testing.md, "End-to-end tests").
  timeout: 90_000,
  expect: { timeout: 15_000 },
  workers: 2,
  forbidOnly: true,
  reporter: [['list'], ['json', { outputFile: '.cache/test-results/e2e.json' }]],
  use: {
    browserName: 'chromium',
    viewport: { width: 1200, height: 760 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'browser-mode', testIgnore: /electron\.spec\.ts$/ },
    { name: 'electron', testMatch: /electron\.spec\.ts$/ },
  ],
});
