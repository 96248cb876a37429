/**
 * The organisation's policy beside the controls it overrides outside Settings → Approvals
 * (docs/user/organisation-policy.md, "What the person sees"): the server form's trust switch under a locked global
 * mode, an audit sink's id that a locked sink holds (typed, then refused under the Id field) and a sink of the person's
 * that gives way to a locked one; a server's sandbox form under a limit on network grants; a refused change of a provider says why in a sentence, never an RPC name. Shot in
 * light and dark, with axe.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { useManagedPolicy } from './managed-policy';
import { filesReady, openSettings, shoot } from './settings-helpers';

const TRUST_WORDS =
  'Set by your organisation: the global mode is locked to "Ask before every tool call", so this server\'s read-only tools ask like any other; trust changes only their risk badge.';

useManagedPolicy({
  sandbox: { allowNetwork: false },
  // A default sink, in force until the person sets sinks of their own; nothing listens there either.
  defaults: {
    auditShipping: { sinks: [{ type: 'syslog', id: 'org-default', host: '127.0.0.1', port: 9, enabled: false }] },
  },
  locked: {
    mode: 'ask',
    // Nothing listens there; the sink only has to exist.
    auditShipping: { sinks: [{ type: 'syslog', id: 'org-siem', host: '127.0.0.1', port: 9 }] },
  },
});

test("the server form says that a locked global mode overrides trusting a server's annotations", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'MCP servers');

  // Adding a server: the switch stays the person's (it still moves the risk badge), with the organisation's words.
  await dialog.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByTestId('server-form');
  const trust = form.getByRole('switch', { name: "Trust this server's annotations" });
  await expect(form.getByTestId('lock-note')).toHaveText(TRUST_WORDS);
  await expect(trust).toBeEnabled();
  await expect(trust).toHaveAccessibleDescription(
    /^Read-only hints may then auto-approve tools in the matching global mode\. ?Set by your organisation: the global mode is locked to "Ask before every tool call"/,
  );
  await form.getByRole('button', { name: 'Cancel' }).click();

  // Editing a server: the same words.
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /Files/ }).click();
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  // The server's own page has the same switch, with the same words.
  await expect(detail.getByTestId('lock-note')).toHaveText(TRUST_WORDS);
  await expect(detail.getByRole('switch', { name: "Trust this server's annotations" })).toHaveAccessibleDescription(
    /Only trust servers you know\. ?Set by your organisation: the global mode is locked/,
  );
  await detail.getByRole('button', { name: 'Edit' }).click();
  await expect(form.getByTestId('lock-note')).toHaveText(TRUST_WORDS);
  await form.getByTestId('lock-note').scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-server-form`);
  }
});

test("an audit sink under a locked sink's id says so under its Id field, and a sink of yours that gives way says so", async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  let dialog = await openSettings(page, workbench, 'Audit shipping');
  // The organisation's default sinks, listed as the person's while they have none of their own, say so.
  const defaultsNote =
    'Set by your organisation: this sink is one of its defaults, which ship while you have set no sinks of your own; adding, editing or removing one makes them yours.';
  await expect(dialog.getByRole('listitem', { name: 'org-default' })).toBeVisible();
  await expect(dialog.locator('#default-sink-org-default')).toHaveText(defaultsNote);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-default-sinks`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await dialog.getByRole('button', { name: 'Add sink' }).click();
  const form = page.getByTestId('sink-form');
  const id = form.getByLabel('Id');
  await id.fill('org-siem');
  await expect(form.getByTestId('lock-note')).toHaveText(
    'Set by your organisation: its sink "org-siem" has this id; give this one another.',
  );
  await expect(id).toHaveAccessibleDescription(
    'Set by your organisation: its sink "org-siem" has this id; give this one another.',
  );
  await form.getByLabel('Host').fill('127.0.0.1');
  await form.getByRole('button', { name: 'Add sink' }).click();
  // Refused by main too, and the reason is under the Id field, not an RPC name at the foot of the form.
  const problem = form
    .locator('.field')
    .filter({ has: page.getByLabel('Id', { exact: true }) })
    .getByRole('alert');
  await expect(problem).toHaveText(
    'The audit sink "org-siem" is set by your organisation: it cannot be changed or removed here.',
  );
  await expect(id).toHaveAttribute('aria-invalid', 'true');
  await expect(form.getByRole('alert')).toHaveCount(1);
  await expect(form).not.toContainText('failed:');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-sink-id`);
  }
  await id.fill('mine');
  await expect(form.getByTestId('lock-note')).toHaveCount(0);
  await form.getByRole('button', { name: 'Cancel' }).click();

  // A sink of the person's with the locked sink's id, written into settings.json by hand: it gives way, and says so.
  const file = path.join(workbench.dataDir, 'settings.json');
  const settings = JSON.parse(await fs.readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  settings['auditShipping'] = {
    sinks: [{ type: 'syslog', id: 'org-siem', host: '127.0.0.2', port: 514, enabled: true }],
  };
  await fs.writeFile(file, JSON.stringify(settings), 'utf8');
  await workbench.restart();
  await page.emulateMedia({ colorScheme: 'light' });
  dialog = await openSettings(page, workbench, 'Audit shipping');
  const cards = dialog.getByRole('list', { name: 'Audit sinks' }).getByRole('listitem', { name: 'org-siem' });
  await expect(cards).toHaveCount(2);
  // The person's own sinks now: the defaults' note is gone.
  await expect(dialog.locator('#default-sink-org-default')).toHaveCount(0);
  const mine = cards.filter({ hasText: '127.0.0.2:514' });
  await expect(mine.getByTestId('lock-note')).toHaveText(
    'Set by your organisation: its sink "org-siem" ships in this one\'s place; this one sends nothing.',
  );
  await expect(cards.filter({ hasText: '127.0.0.1:9' }).getByTestId('lock-note')).toHaveText(
    'Set by your organisation',
  );
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-sink-gives-way`);
  }
});

test('a refused change of a provider says why in a sentence, never an RPC name', async ({ page, workbench }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'Providers');
  // The settings file broken by hand while the app runs: every change to it is refused, with the file's words.
  await fs.writeFile(path.join(workbench.dataDir, 'settings.json'), '{ "providers": ', 'utf8');
  await dialog.getByRole('button', { name: 'Add provider' }).click();
  const form = page.getByTestId('provider-form');
  await form.getByLabel('Kind').selectOption('openai-compatible');
  await form.getByLabel('Name').fill('Local server');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form.getByRole('alert')).toHaveText(/^The settings file .*settings\.json is not valid JSON/);
  await expect(form).not.toContainText('providers.add');
  await expect(form).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-provider-refused`);
  }
});

test("a server's sandbox form says that the organisation allows no network, and a refused request says why under it", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.setViewportSize({ width: 1280, height: 800 });
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /Files/ }).click();
  const detail = dialog.getByRole('region', { name: 'Server Files' });
  const containment = await detail.getByTestId('server-containment').textContent();
  test.skip(containment !== 'Contained', `Files runs ${containment ?? 'without a containment badge'} here: no sandbox`);
  await detail.getByRole('tab', { name: 'Sandbox' }).click();
  const sandbox = detail.getByTestId('server-sandbox');
  const widen = sandbox.getByRole('region', { name: 'Widen the sandbox' });
  await expect(widen.getByTestId('lock-note')).toHaveCount(0);
  await sandbox.getByLabel('What to allow').selectOption('connect');
  await expect(widen.getByTestId('lock-note')).toHaveText(
    'Set by your organisation: it allows no network, so no host:port can be granted.',
  );
  await sandbox.getByLabel('Path, host:port or variable').fill('example.org:443');
  await sandbox.getByRole('button', { name: 'Allow…' }).click();
  await expect(widen.getByTestId('setting-problem')).toHaveText(
    'Not asked: Your organisation allows no network access to contained servers.',
  );
  await widen.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-sandbox-network`);
  }
});
