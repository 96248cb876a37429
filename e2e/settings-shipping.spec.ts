/**
 * Settings → Audit shipping in browser mode: a syslog sink added through the page ships real audit rows (Demo
 * provider, Files server) to a TCP receiver in this test, and its progress shows live; an OTLP sink with a header
 * whose collector is down shows its error; edit and remove. Screenshots in light and dark.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { ROOT, expect, test } from './fixtures';
import { filesReady, openSettings, runApprovalCycle } from './settings-helpers';
import { checkAccessibility } from './axe';

const SCREENS = path.join(ROOT, '.cache', 'screenshots');

/** A syslog receiver: counts the octet-counted frames it was sent. */
async function receiver(): Promise<{ port: number; frames: () => number; close: () => Promise<void> }> {
  let received = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    frames: () => (received.match(/<1\d\d>1 /g) ?? []).length,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function shoot(page: Page, name: string): Promise<void> {
  await fs.mkdir(SCREENS, { recursive: true });
  await page.mouse.move(5, 5);
  await page.screenshot({ path: path.join(SCREENS, `${name}.png`), animations: 'disabled', caret: 'hide' });
  await checkAccessibility(page, name);
}

test('add a syslog and an OTLP sink, watch their progress and errors live, edit and remove', async ({
  page,
  workbench,
}) => {
  test.setTimeout(150_000);
  const syslog = await receiver();
  const down = await closedPort();
  try {
    await filesReady(workbench);
    await runApprovalCycle(workbench, { title: 'Shipped chat', decision: 'TOOL_CALL_DECISION_ALLOW_ONCE' });
    const dialog = await openSettings(page, workbench, 'Audit shipping');
    await expect(dialog.getByText('The audit log stays on this machine.')).toBeVisible();

    // A syslog sink over plain TCP to the receiver.
    await dialog.getByRole('button', { name: 'Add sink' }).click();
    let form = page.getByTestId('sink-form');
    await form.getByLabel('Id').fill('siem');
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByLabel('Port').fill(String(syslog.port));
    await form.getByRole('switch', { name: 'TLS (RFC 5425)' }).click();
    await form.getByRole('button', { name: 'Add sink' }).click();
    await expect(form).toBeHidden();
    const siem = dialog.getByTestId('sink-siem');
    await expect(siem).toContainText('127.0.0.1:' + String(syslog.port));
    await expect(siem.getByTestId('sink-lag')).toContainText('Up to date', { timeout: 15_000 });
    const head = (await workbench.call('audit.shippingStatus')) as { sinks: { headSequence: number }[] };
    await expect.poll(() => syslog.frames()).toBe(head.sinks[0]?.headSequence);

    // An OTLP sink whose collector is down, with a header: its error shows, refreshed without reopening the page.
    await dialog.getByRole('button', { name: 'Add sink' }).click();
    form = page.getByTestId('sink-form');
    await form.getByLabel('Kind').selectOption('otlp');
    await form.getByLabel('Id').fill('otel');
    await form.getByLabel('Endpoint (optional)').fill(`http://127.0.0.1:${down}/v1/logs`);
    await form.getByRole('button', { name: 'Add header' }).click();
    await form.getByLabel('Header name').fill('authorization');
    await form.getByLabel('Value of authorization').fill('Bearer org-secret-token');
    await form.getByRole('button', { name: 'Add sink' }).click();
    await expect(form).toBeHidden();
    const otel = dialog.getByTestId('sink-otel');
    await expect(otel).toContainText('authorization');
    await expect(otel.getByTestId('sink-error')).toBeVisible({ timeout: 20_000 });
    await expect(otel).toContainText('Failing');
    await expect(otel.getByTestId('sink-lag')).toContainText('rows behind');
    // The header's value went to the secret store, never to settings.json, and never comes back through the contract.
    expect(await fs.readFile(path.join(workbench.dataDir, 'settings.json'), 'utf8')).not.toContain('org-secret-token');
    expect(JSON.stringify(await workbench.call('audit.shippingSinks'))).not.toContain('org-secret-token');

    // New rows reach the syslog sink while the page is open: its progress follows.
    await runApprovalCycle(workbench, { title: 'Later chat', decision: 'TOOL_CALL_DECISION_DENY', reason: 'not now' });
    const later = (await workbench.call('audit.shippingStatus')) as { sinks: { headSequence: number }[] };
    await expect(siem.getByTestId('sink-lag')).toContainText(
      `${later.sinks[0]?.headSequence} of ${later.sinks[0]?.headSequence} rows delivered`,
      { timeout: 15_000 },
    );

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, `${scheme}-audit-shipping`);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Edit: the form shows the header as set (never its value); switching the sink off keeps it listed as Off.
    await otel.getByRole('button', { name: 'Edit otel' }).click();
    form = page.getByTestId('sink-form');
    await expect(form.getByLabel('Value of authorization')).toHaveValue('');
    await expect(form.getByLabel('Value of authorization')).toHaveAttribute('placeholder', /set/);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await shoot(page, `${scheme}-audit-shipping-edit`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await form.getByRole('switch', { name: 'Ship to this sink' }).click();
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form).toBeHidden();
    await expect(otel).toContainText('Off');

    // A refused value is named under its field.
    await dialog.getByRole('button', { name: 'Add sink' }).click();
    form = page.getByTestId('sink-form');
    await form.getByLabel('Id').fill('siem');
    await form.getByLabel('Host').fill('127.0.0.1');
    await form.getByRole('button', { name: 'Add sink' }).click();
    await expect(form.getByRole('alert')).toContainText('taken');
    await form.getByRole('button', { name: 'Cancel' }).click();

    // Remove.
    await otel.getByRole('button', { name: 'Remove otel' }).click();
    await page.getByRole('dialog', { name: 'Remove otel?' }).getByRole('button', { name: 'Remove' }).click();
    await expect(otel).toBeHidden();
    await expect(siem).toBeVisible();
    expect(((await workbench.call('audit.shippingSinks')) as { sinks: unknown[] }).sinks).toHaveLength(1);
  } finally {
    await syslog.close();
  }
});

test('signed checkpoints: turned on from the page, the public key shows at once, and the interval is saved', async ({
  page,
  workbench,
}) => {
  test.setTimeout(90_000);
  const dialog = await openSettings(page, workbench, 'Audit shipping');
  const section = dialog.getByTestId('checkpoints-section');
  await expect(section.getByText('The key is made when checkpoints are turned on')).toBeVisible();
  // Saved first, then shown checked (the page shows what the app holds).
  await section.getByLabel('Write signed checkpoints').click();
  await expect(section.getByLabel('Write signed checkpoints')).toBeChecked();
  const key = section.getByTestId('checkpoint-public-key');
  await expect(key).toContainText('-----BEGIN PUBLIC KEY-----');
  // The page shows the key the log signs with: the contract's view holds the same one.
  const view = (await workbench.call('audit.checkpoints')) as { settings: { enabled: boolean }; publicKeyPem: string };
  expect(view.settings.enabled).toBe(true);
  expect((await key.textContent())?.trim()).toBe(view.publicKeyPem.trim());

  await section.getByLabel('Every … rows').fill('250');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(
      async () =>
        ((await workbench.call('audit.checkpoints')) as { settings: { everyRows: number } }).settings.everyRows,
    )
    .toBe(250);
  // A refused interval is named under its field and changes nothing.
  await section.getByLabel('Every … rows').fill('0');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByRole('alert')).toBeVisible();
  expect(((await workbench.call('audit.checkpoints')) as { settings: { everyRows: number } }).settings.everyRows).toBe(
    250,
  );
  await section.getByLabel('Every … rows').fill('250');
  await expect(section.getByRole('alert')).toBeHidden();
  await expect(section.getByLabel('Write signed checkpoints')).toBeChecked();

  await section.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-audit-checkpoints`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});
