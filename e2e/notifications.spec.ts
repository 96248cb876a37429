/**
 * Browser mode's notifications for waiting calls (docs/user/browser-mode.md#notifications): the app
 * explains and offers them the first time a call waits; once allowed, a call that starts waiting while the tab is
 * hidden raises one (naming the tool and server, not the arguments), the tab's favicon and title carry the count,
 * a click opens the call in the inbox, and deciding it there closes the notification.
 *
 * Playwright cannot click a system notification, so an init script records each `new Notification(…)` (still
 * creating the real one) and the test calls its `onclick` as the browser would.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { chatUi, filesReady, say, shoot } from './chat-ui';

interface Recorded {
  title: string;
  body: string;
  tag: string;
  closed: boolean;
}

/** What the page side of this test uses (the e2e code is type-checked without the DOM's types). */
interface PageNotification {
  onclick: ((event: unknown) => void) | null;
  close(): void;
}
interface PageScope {
  Notification: (new (title: string, options?: { body?: string; tag?: string }) => PageNotification) & {
    permission: string;
  };
  recordedNotifications: (Recorded & { instance: PageNotification })[];
  setHidden(value: boolean): void;
  document: { dispatchEvent(event: unknown): boolean };
  Event: new (type: string) => unknown;
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    const page = globalThis as unknown as PageScope;
    const Real = page.Notification;
    const recorded: PageScope['recordedNotifications'] = [];
    page.recordedNotifications = recorded;
    class Recording extends Real {
      constructor(title: string, options?: { body?: string; tag?: string }) {
        super(title, options);
        const entry = {
          title,
          body: options?.body ?? '',
          tag: options?.tag ?? '',
          closed: false,
          instance: this as PageNotification,
        };
        recorded.push(entry);
        const close = this.close.bind(this);
        this.close = () => {
          entry.closed = true;
          close();
        };
      }
    }
    page.Notification = Recording as PageScope['Notification'];
    // A hidden tab, as when the person switched to another one (headless pages are always "visible").
    let hidden = false;
    Object.defineProperty(page.document, 'visibilityState', {
      configurable: true,
      get: () => (hidden ? 'hidden' : 'visible'),
    });
    page.setHidden = (value) => {
      hidden = value;
      page.document.dispatchEvent(new page.Event('visibilitychange'));
    };
  });
});

const notifications = (page: Page): Promise<Recorded[]> =>
  page.evaluate(() =>
    (globalThis as unknown as PageScope).recordedNotifications.map(({ title, body, tag, closed }) => ({
      title,
      body,
      tag,
      closed,
    })),
  );
const setHidden = (page: Page, hidden: boolean): Promise<void> =>
  page.evaluate((value) => (globalThis as unknown as PageScope).setHidden(value), hidden);
const permission = (page: Page): Promise<string> =>
  page.evaluate(() => (globalThis as unknown as PageScope).Notification.permission);

test('offered once the first call waits; once allowed, a call waiting in a hidden tab is notified, counted on the favicon, opened on click and closed when decided', async ({
  page,
  context,
  workbench,
}) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  expect(await permission(page)).toBe('default');
  const icon = page.locator('link[rel="icon"]');
  const plainIcon = await icon.getAttribute('href');
  const offer = page.getByRole('region', { name: 'Notifications' });
  await expect(page.getByRole('button', { name: 'Start a new chat' })).toBeVisible();
  // Nothing is offered before anything waits.
  await expect(offer).toHaveCount(0);

  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await say(page, 'write first.txt: hello');
  await expect(view.card('write_file')).toBeVisible();
  await expect(offer).toContainText(
    'Get a notification when a tool call waits for you while this tab is in the background?',
  );
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-34-notification-offer`);
  }
  await context.grantPermissions(['notifications'], { origin: workbench.origin });
  await offer.getByRole('button', { name: 'Turn on notifications' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Notifications are on' })).toBeVisible();
  await expect(offer).toHaveCount(0);
  await view.card('write_file').getByRole('button', { name: 'Deny', exact: true }).click();
  await expect(view.cards).toHaveCount(0);
  // A call that starts waiting while the tab is visible is not notified: the card is on screen.
  expect(await notifications(page)).toEqual([]);

  // The person switches away; a call starts waiting in another chat.
  await setHidden(page, true);
  const other = (await workbench.call('chat.create', {
    title: 'Background work',
    providerId: 'demo',
    model: 'demo',
  })) as { id: string };
  await workbench.call('chat.send', {
    chatId: other.id,
    message: { role: 'user', text: 'write secret.txt: the arguments stay out' },
  });
  await expect.poll(() => notifications(page)).toHaveLength(1);
  const [notice] = await notifications(page);
  expect(notice?.title).toBe('A tool call waits for your decision');
  expect(notice?.body).toBe('Run write_file from Files — in “Background work”');
  expect(notice?.body).not.toContain('secret');
  await expect(page).toHaveTitle('(1) AI Workbench');
  const counted = await icon.getAttribute('href');
  expect(counted).toMatch(/^data:image\/svg\+xml,/);
  expect(decodeURIComponent(counted ?? '')).toContain('>1</text>');

  // Its click opens the call in the inbox, where it is decided.
  await page.evaluate(() => {
    const [entry] = (globalThis as unknown as PageScope).recordedNotifications;
    entry?.instance.onclick?.({ type: 'click' });
  });
  await setHidden(page, false);
  const item = page
    .getByRole('dialog', { name: 'Waiting for you' })
    .getByRole('listitem', { name: 'Files.write_file in Background work' });
  await expect(item).toBeFocused();
  await item.getByRole('button', { name: 'Deny', exact: true }).click();
  await expect.poll(async () => (await notifications(page))[0]?.closed).toBe(true);
  await expect(page).toHaveTitle('AI Workbench');
  await expect(icon).toHaveAttribute('href', plainIcon ?? '');
});

test('"Not now" is kept: the offer is not made again after a reload', async ({ page, workbench }) => {
  await filesReady(workbench);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  await say(page, 'write first.txt: hello');
  const offer = page.getByRole('region', { name: 'Notifications' });
  await offer.getByRole('button', { name: 'Not now' }).click();
  await expect(offer).toHaveCount(0);
  await page.reload();
  await expect(chatUi(page).card('write_file')).toBeVisible();
  await expect(offer).toHaveCount(0);
  expect(await permission(page)).toBe('default');
});
