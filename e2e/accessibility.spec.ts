/**
 * Accessibility (docs/user/accessibility.md). Every screenshot the specs take is checked with axe-core
 * in its colour scheme (e2e/axe.ts); here, the first screens a person meets are checked in both schemes at once.
 */
import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot } from './chat-ui';

/** Axe's violations of the page as it is, in light and in dark, each naming the screen. */
async function violations(page: Page, screen: string): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await axeViolations(page)).map((violation) => `[${screen}, ${scheme}] ${violation}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test('the chat: welcome, empty, a waiting card, an allowed call', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  const problems: string[] = [];
  problems.push(...(await violations(page, 'welcome')));
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await expect(view.input).toBeEnabled();
  problems.push(...(await violations(page, 'empty chat')));
  await say(page, 'write a11y.txt: hello');
  await expect(view.card('write_file')).toBeVisible();
  problems.push(...(await violations(page, 'waiting card')));
  await view.card('write_file').getByRole('button', { name: 'Allow once', exact: true }).click();
  await expect(view.toolCalls.first()).toContainText('Done');
  problems.push(...(await violations(page, 'allowed call')));
  expect(problems, problems.join('\n')).toEqual([]);
});

test('settings pages', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByTestId('open-settings').click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  const problems: string[] = [];
  for (const section of ['Providers', 'MCP servers', 'Approvals', 'Audit log', 'Audit shipping']) {
    await dialog.getByRole('tab', { name: section }).click();
    await expect(dialog.getByRole('heading', { level: 2, name: section })).toBeVisible();
    problems.push(...(await violations(page, `settings: ${section}`)));
  }
  expect(problems, problems.join('\n')).toEqual([]);
});

/** What has the focus: its role and name, and whether a focus ring shows (an outline or a box-shadow). */
async function focused(page: Page): Promise<{ label: string; ring: boolean }> {
  return page.evaluate(() => {
    const scope = globalThis as unknown as {
      document: {
        activeElement: {
          tagName: string;
          getAttribute(name: string): string | null;
          textContent: string | null;
        } | null;
      };
      getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string; boxShadow: string };
    };
    const element = scope.document.activeElement as
      (typeof scope.document.activeElement & { closest(selector: string): unknown }) | null;
    if (!element) return { label: '(nothing)', ring: false };
    const drawn = (target: unknown): boolean => {
      const style = scope.getComputedStyle(target);
      return (
        (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) ||
        (style.boxShadow !== 'none' && style.boxShadow !== '')
      );
    };
    // A borderless input inside a field (the composer, the search) has its ring drawn by the field.
    const field = element.closest('.composer, .search');
    const ring = drawn(element) || (field !== null && drawn(field));
    const name = element.getAttribute('aria-label') ?? (element.textContent ?? '').trim().slice(0, 60);
    return {
      label: `${element.tagName.toLowerCase()}${element.getAttribute('role') ? `[${element.getAttribute('role')}]` : ''} "${name}"`,
      ring,
    };
  });
}

/** Presses Tab (or Shift+Tab) until the focused element's label matches, checking a focus ring shows on each stop. */
async function tabTo(page: Page, target: RegExp, backwards = false, limit = 40): Promise<string[]> {
  const stops: string[] = [];
  for (let step = 0; step < limit; step++) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const now = await focused(page);
    stops.push(now.label);
    expect(now.ring, `no visible focus ring on ${now.label}`).toBe(true);
    if (target.test(now.label)) return stops;
  }
  throw new Error(`Tab never reached ${String(target)}; it went through:\n${stops.join('\n')}`);
}

test("seed 000 by keyboard only: a new chat, a message, each of the card's three answers; a focus ring on every stop", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  const view = chatUi(page);
  await expect(page.getByRole('button', { name: 'Start a new chat' })).toBeVisible();
  await tabTo(page, /^button "(Start a new chat|New chat)"/);
  await page.keyboard.press('Enter');
  await expect(view.input).toBeFocused();

  // Allow once: the input keeps the focus while the reply runs; Shift+Tab goes up into the card.
  await page.keyboard.type('write keys.txt: typed, not clicked');
  await page.keyboard.press('Enter');
  await expect(view.card('write_file')).toBeVisible();
  await expect(view.input).toBeFocused();
  await tabTo(page, /^button "Allow once"/, true);
  await page.keyboard.press('Enter');
  await expect(view.toolCalls.nth(0)).toContainText('Done');
  await expect(view.input).toBeFocused();

  // Allow for this chat, with Space.
  await page.keyboard.type('list files');
  await page.keyboard.press('Enter');
  await expect(view.card('list_directory')).toBeVisible();
  await tabTo(page, /^button "Allow for this chat"/, true);
  await page.keyboard.press('Space');
  await expect(view.toolCalls.nth(1)).toContainText('Done');
  expect(
    ((await workbench.call('grants.list', {})) as { grants: { toolName: string }[] }).grants.map(
      (grant) => grant.toolName,
    ),
  ).toEqual(['list_directory']);

  // Deny.
  await expect(view.input).toBeFocused();
  await page.keyboard.type('read keys.txt');
  await page.keyboard.press('Enter');
  await expect(view.card('read_text_file')).toBeVisible();
  await tabTo(page, /^button "Deny"$/, true);
  await page.keyboard.press('Enter');
  await expect(view.toolCalls.nth(2)).toContainText('Denied');
  await expect(view.input).toBeFocused();
});

test('reduced motion stops animations and transitions; more contrast strengthens borders, muted text and the focus ring', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await say(page, 'write motion.txt: still');
  await view.card('write_file').getByRole('button', { name: 'Allow once', exact: true }).click();
  const chevron = view.toolCalls.first().locator('.tool-block-chevron');
  const style = (
    property: 'transitionDuration' | 'borderTopColor' | 'color' | 'outlineWidth',
    locator = chevron,
  ): Promise<string> =>
    locator.evaluate(
      (element, name) =>
        (globalThis as unknown as { getComputedStyle(target: unknown): Record<string, string> }).getComputedStyle(
          element,
        )[name] ?? '',
      property,
    );

  expect(await style('transitionDuration')).toBe('0.12s');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(parseFloat(await style('transitionDuration'))).toBeLessThan(0.001);

  const block = view.toolCalls.first();
  const muted = page.locator('.tool-block-chevron').first();
  const normal = { border: await style('borderTopColor', block), muted: await style('color', muted) };
  await page.emulateMedia({ reducedMotion: 'reduce', contrast: 'more' });
  expect(await style('borderTopColor', block)).not.toBe(normal.border);
  expect(await style('borderTopColor', block)).toBe('rgb(107, 114, 128)');
  expect(await style('color', muted)).toBe('rgb(63, 68, 77)');
  await view.input.focus();
  await page.keyboard.press('Shift+Tab');
  expect(
    await page.evaluate(
      () =>
        (
          globalThis as unknown as {
            getComputedStyle(target: unknown): { outlineWidth: string };
            document: { activeElement: unknown };
          }
        ).getComputedStyle((globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement)
          .outlineWidth,
    ),
  ).toBe('3px');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce', contrast: 'more' });
    await shoot(page, `${scheme}-36-more-contrast`);
  }
  await page.emulateMedia({ colorScheme: 'dark', contrast: 'more' });
  expect(await style('color', muted)).toBe('rgb(201, 206, 214)');
});

/**
 * 200 % zoom, as a browser zooms a 1200 × 760 window: the page lays out in half the CSS pixels (600 × 380) at twice
 * the device pixels, so every text, px-sized or not, is twice as large. Nothing may be cut off sideways, and the
 * card's answers stay in view.
 */
test.describe('at 200 % zoom', () => {
  test.use({ viewport: { width: 600, height: 380 }, deviceScaleFactor: 2 });

  const noSidewaysOverflow = async (page: Page, where: string): Promise<void> => {
    const overflow = await page.evaluate(() => {
      const doc = (
        globalThis as unknown as {
          document: {
            documentElement: { scrollWidth: number; clientWidth: number };
            querySelectorAll(
              selector: string,
            ): ArrayLike<{ className: string; scrollWidth: number; clientWidth: number }>;
          };
        }
      ).document;
      const regions = Array.from(
        doc.querySelectorAll('.app, main, .chat-view, .composer, .settings-dialog, .settings-content'),
      );
      return [
        ...(doc.documentElement.scrollWidth > doc.documentElement.clientWidth
          ? [`the page: ${doc.documentElement.scrollWidth} > ${doc.documentElement.clientWidth}`]
          : []),
        ...regions
          .filter((region) => region.scrollWidth > region.clientWidth + 1)
          .map((region) => `.${region.className.split(' ')[0]}: ${region.scrollWidth} > ${region.clientWidth}`),
      ];
    });
    expect(overflow, `cut off sideways on ${where}`).toEqual([]);
  };

  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: a chat with a waiting card and two settings pages, nothing cut off`, async ({
      page,
      workbench,
    }) => {
      await page.emulateMedia({ colorScheme: scheme });
      await filesReady(workbench);
      await page.goto(workbench.url);
      await page.getByRole('button', { name: 'Start a new chat' }).click();
      const view = chatUi(page);
      await say(page, 'write zoom.txt: twice the size');
      const card = view.card('write_file');
      await expect(card).toBeVisible();
      await card.scrollIntoViewIfNeeded();
      for (const name of ['Allow for this chat', 'Allow once', 'Deny']) {
        const button = card.getByRole('button', { name, exact: true });
        await button.scrollIntoViewIfNeeded();
        const box = await button.boundingBox();
        expect(box, name).not.toBeNull();
        expect(
          (box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 600,
          `${name} is inside the window sideways`,
        ).toBe(true);
      }
      await noSidewaysOverflow(page, 'the chat');
      await card.getByRole('button', { name: 'Allow once', exact: true }).scrollIntoViewIfNeeded();
      await shoot(page, `${scheme}-37-zoom-200-card`);

      await card.getByRole('button', { name: 'Allow once', exact: true }).click();
      await expect(view.toolCalls.first()).toContainText('Done');
      await page.getByTestId('open-settings').click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      for (const section of ['Approvals', 'MCP servers'] as const) {
        await dialog.getByRole('tab', { name: section }).click();
        await expect(dialog.getByRole('heading', { level: 2, name: section })).toBeVisible();
        await noSidewaysOverflow(page, `settings: ${section}`);
        await shoot(page, `${scheme}-38-zoom-200-${section === 'Approvals' ? 'approvals' : 'servers'}`);
      }
    });
  }
});
