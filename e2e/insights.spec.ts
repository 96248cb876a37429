/** Settings → Insights in browser mode, over rows made by real approval cycles (Demo provider, Files server). */
import fs from 'node:fs/promises';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { clockReady } from './apps-helpers';
import { say, scriptedChat } from './chat-ui';
import { expect, test } from './fixtures';
import { filesReady, runApprovalCycle, shoot } from './settings-helpers';

/** The brightest drawn pixel of a chart's canvas, 0–255 (gridlines, axes, labels and bars). */
async function brightestPixel(page: Page, testId: string): Promise<number> {
  return page
    .getByTestId(testId)
    .locator('canvas')
    .first()
    .evaluate((element) => {
      // The page's canvas, typed here without the DOM library (this file is checked as Node code).
      const canvas = element as unknown as {
        width: number;
        height: number;
        getContext(
          kind: '2d',
        ): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
      };
      const context = canvas.getContext('2d');
      if (!context) return 255;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      let brightest = 0;
      for (let index = 0; index < data.length; index += 4) {
        if ((data[index + 3] ?? 0) < 128) continue;
        brightest = Math.max(brightest, ((data[index] ?? 0) + (data[index + 1] ?? 0) + (data[index + 2] ?? 0)) / 3);
      }
      return brightest;
    });
}

/** Saves what a button downloads and returns it. */
/** The top-left pixel of a PNG (8-bit RGBA, as a browser saves a canvas): whatever the row's filter, it is stored as is. */
function firstPixel(png: Buffer): number[] {
  const chunks: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += length + 12;
  }
  return [...inflateSync(Buffer.concat(chunks)).subarray(1, 5)];
}

async function download(
  page: Page,
  dataDir: string,
  button: ReturnType<Page['getByRole']>,
): Promise<{ name: string; bytes: Buffer }> {
  const downloading = page.waitForEvent('download');
  await button.click();
  const saved = await downloading;
  const file = path.join(dataDir, '..', `${path.basename(dataDir)}-${saved.suggestedFilename()}`);
  await saved.saveAs(file);
  const bytes = await fs.readFile(file);
  await fs.rm(file);
  return { name: saved.suggestedFilename(), bytes };
}

test('the insights page in light and dark, a bar opening its rows, and a suggestion accepted into the policy', async ({
  page,
  workbench,
}) => {
  test.setTimeout(120_000);
  await filesReady(workbench);
  // Five calls the person allowed once, never denied: the same listing every time, so a suggestion can name it exactly.
  for (let index = 0; index < 5; index++)
    await runApprovalCycle(workbench, { title: `Chat ${index}`, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });

  await page.goto(workbench.url);
  await page.getByTestId('open-insights').click();
  // The page follows the system's scheme while it is open: one visit, both schemes.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await expect(dialog.getByRole('heading', { level: 2, name: 'Insights' })).toBeVisible();
    await expect(dialog.getByTestId('chart-decisions-by-day').locator('canvas').first()).toBeVisible();
    await expect(dialog.getByRole('list', { name: 'Totals' })).toContainText('5Decisions');
    await expect(dialog.getByTestId('insights-suggestions')).toContainText(
      'You allowed Files.list_directory 5 times in 7 days and never denied it',
    );
    // Drawn again in the scheme's colours: in dark, no gridline, axis or label is near white.
    if (scheme === 'dark') await expect.poll(() => brightestPixel(page, 'chart-decisions-by-day')).toBeLessThan(200);
    await shoot(page, `insights-${scheme}`);
  }

  // What the suggestion would allow: the one call seen (the same listing five times), nothing else.
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByText('What it would allow: 1 call, nothing else').click();
  await expect(dialog.getByRole('list', { name: 'Calls the rule for Files.list_directory would allow' })).toContainText(
    '{"path":',
  );
  await dialog.getByTestId('insights-suggestions').scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `insights-suggestion-${scheme}`);
  }

  // The HTML bar chart saves as SVG (the same bars) and PNG.
  const svg = await download(
    page,
    workbench.dataDir,
    dialog.getByRole('button', { name: 'Save “Tools asked about most” as SVG' }),
  );
  expect(svg.name).toBe('tools-asked-about-most.svg');
  expect(svg.bytes.toString('utf8')).toMatch(/^<svg [^>]*>.*>Files\.list_directory<\/text>/);
  const png = await download(
    page,
    workbench.dataDir,
    dialog.getByRole('button', { name: 'Save “Tools asked about most” as PNG' }),
  );
  expect(png.name).toBe('tools-asked-about-most.png');
  expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.bytes.length).toBeGreaterThan(1000);
  // A canvas chart's PNG is drawn on the pane's background (dark here), not left transparent under light text.
  const canvasPng = await download(
    page,
    workbench.dataDir,
    dialog.getByRole('button', { name: /^Save “Decisions by \w+” as PNG$/ }),
  );
  const [red = 255, green = 255, blue = 255, alpha = 0] = firstPixel(canvasPng.bytes);
  expect(alpha).toBe(255);
  expect((red + green + blue) / 3).toBeLessThan(60);

  // A part of a tool's bar opens its rows in the audit viewer.
  await dialog.getByRole('button', { name: /Files\.list_directory: 5 Allowed by you; show the rows/ }).click();
  await expect(dialog.getByRole('heading', { level: 2, name: 'Audit log' })).toBeVisible();
  await expect(dialog.getByTestId('audit-insights-filter')).toContainText('Allowed once or Allowed for chat');
  await expect(dialog.getByRole('table', { name: 'Audit log' }).locator('tbody tr')).toHaveCount(5);

  // Accepted, the suggestion is a policy change in the log.
  await dialog.getByRole('tab', { name: 'Insights' }).click();
  await dialog.getByRole('button', { name: 'Allow without asking' }).click();
  await expect(dialog.getByText(/A new allow rule at the end of your list/).first()).toBeVisible();
  const view = (await workbench.call('policy.get')) as { policy: { rules: { id: string; note?: string }[] } };
  const rule = view.policy.rules.find((entry) => entry.note === 'accepted from an Insights suggestion');
  expect(rule).toBeDefined();
  const rows = (await workbench.call('audit.query', { kind: 'policy' })) as { entries: { decidedBy: string }[] };
  expect(rows.entries.some((entry) => entry.decidedBy.includes(rule?.id ?? '?'))).toBe(true);

  // Undone from Settings › Approvals: the rule is removed, and the removal is in the log.
  await dialog.getByRole('button', { name: 'Show in Settings › Approvals' }).click();
  const notice = dialog.getByTestId('remembered-setting');
  await expect(notice).toContainText('Just accepted from an Insights suggestion');
  await expect(dialog.getByRole('listitem', { name: new RegExp(`Rule \\d+: ${rule?.id ?? '?'}`) })).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `insights-undo-${scheme}`);
  }
  await notice.getByRole('button', { name: 'Undo' }).click();
  await expect(notice).toBeHidden();
  await expect(dialog.getByRole('listitem', { name: new RegExp(`Rule \\d+: ${rule?.id ?? '?'}`) })).toHaveCount(0);
  const after = (await workbench.call('policy.get')) as { policy: { rules: { id: string }[] } };
  expect(after.policy.rules.some((entry) => entry.id === rule?.id)).toBe(false);
  const undone = (await workbench.call('audit.query', { kind: 'policy' })) as { entries: { decidedBy: string }[] };
  expect(undone.entries.some((entry) => entry.decidedBy.includes(`rule '${rule?.id ?? '?'}' removed`))).toBe(true);
});

test("an MCP App view's calls open in the audit viewer apart from the model's", async ({ page, workbench }) => {
  test.setTimeout(120_000);
  // The published example app server as "Clock" (docs/user/mcp-apps.md); its get-time allowed without asking.
  await clockReady(workbench);
  await workbench.call('policy.update', { tools: { Clock: { 'get-time': 'auto-approve' } } });
  const { fake } = await scriptedChat(workbench, 'Clock');
  fake.script(
    { kind: 'reply', toolCalls: [{ id: 'call_t', name: 'Clock__get-time', argumentChunks: ['{}'] }] },
    { kind: 'reply', text: ['Here is the time.'] },
  );
  await page.goto(workbench.url);
  await say(page, 'What time is it?');
  // The view asks for the time twice: two calls requested by the app, beside the model's one.
  const view = page.getByTestId('app-view').frameLocator('iframe').frameLocator('iframe');
  await expect(view.locator('#get-time-btn')).toBeVisible({ timeout: 30_000 });
  // Its get-time calls only: what the frame's policy blocked as the view loaded (the example's eval) is an app row too.
  const appDecisions = async (): Promise<number> =>
    (
      (await workbench.call('audit.query', { kind: 'decision', requestedBy: 'app', toolName: 'get-time' })) as {
        entries: unknown[];
      }
    ).entries.length;
  for (let index = 1; index <= 2; index++) {
    await view.locator('#get-time-btn').click();
    await expect.poll(appDecisions, { timeout: 15_000 }).toBe(index);
  }

  await page.getByTestId('open-insights').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('combobox', { name: 'Kind' }).selectOption('app-tool-call');
  await dialog.getByRole('button', { name: /^Clock\.get-time: 2 Allowed by a rule or setting; show the rows/ }).click();
  await expect(dialog.getByRole('heading', { level: 2, name: 'Audit log' })).toBeVisible();
  await expect(dialog.getByRole('combobox', { name: 'Requested by' })).toHaveValue('app');
  const table = dialog.getByRole('table', { name: 'Audit log' });
  await expect(table.locator('tbody tr')).toHaveCount(2);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `audit-app-calls-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // The model's call of the same tool, by the same filter bar.
  await dialog.getByRole('combobox', { name: 'Requested by' }).selectOption('model');
  await expect(table.locator('tbody tr')).toHaveCount(1);
  await expect(table.locator('tbody tr')).toContainText('Clock');
});

test('calls made before a server was accepted show apart from its own, and open their rows', async ({
  page,
  workbench,
}) => {
  test.setTimeout(120_000);
  await filesReady(workbench);
  for (let index = 0; index < 2; index++)
    await runApprovalCycle(workbench, { title: `Before ${index}`, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
  // What Files runs is accepted now (docs/user/approvals.md, "A server's identity"): the calls before were made to
  // what it ran then.
  await workbench.call('mcp.edit', { name: 'Files', acceptIdentity: true });
  await filesReady(workbench);
  await runApprovalCycle(workbench, { title: 'After', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });

  await page.goto(workbench.url);
  await page.getByTestId('open-insights').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog.getByRole('list', { name: 'Totals' })).toContainText('3Decisions');
  const tools = dialog.getByRole('table', { name: 'Tools asked about most' });
  await expect(tools.getByRole('row', { name: /^Files\.list_directory \(before .* UTC\)/ })).toContainText('2');
  await expect(
    tools.getByRole('row', { name: /^Files\.list_directory Files\.list_directory: 1 Allowed/ }),
  ).toBeVisible();
  await tools.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `insights-earlier-server-${scheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await dialog
    .getByRole('button', { name: /^Files \(before .* UTC\)\.list_directory: 2 Allowed by you; show the rows/ })
    .click();
  await expect(dialog.getByRole('table', { name: 'Audit log' }).locator('tbody tr')).toHaveCount(2);
});
