/**
 * Settings → Approvals under an organisation policy (docs/user/organisation-policy.md): browser mode
 * started with WORKBENCH_MANAGED_POLICY locking the global mode and one tool setting shows "Set by your
 * organisation" on them, with their controls disabled and described by that note; a default is marked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, expect, test } from './fixtures';
import { useManagedPolicy } from './managed-policy';
import { filesReady, openSettings } from './settings-helpers';
import { checkAccessibility } from './axe';

const SCREENSHOTS = path.join(ROOT, '.cache', 'screenshots');
const POLICY = {
  locked: {
    mode: 'ask',
    tools: { Files: { write_file: 'always-ask' } },
    serversByIdentity: [
      { serverIdentity: { command: 'npx', package: '@acme/*' }, autoApprove: false, tools: { push: 'always-ask' } },
    ],
    rules: [{ id: 'org-ask-moves', effect: 'ask', server: 'Files', tool: 'move_file', note: 'Moves are reviewed' }],
    // Nothing listens there: the sink shows as failing, which is what a security team would want to see.
    auditShipping: { sinks: [{ type: 'syslog', id: 'org-siem', host: '127.0.0.1', port: 9 }] },
  },
  defaults: { timeoutSeconds: 120 },
};

useManagedPolicy(POLICY);

test('locked settings show "Set by your organisation" and cannot be changed; defaults are marked', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'Approvals');

  // The global mode: every radio disabled, described by the lock note.
  const modes = dialog.getByRole('radiogroup', { name: 'Global mode' });
  const section = dialog.getByRole('region', { name: 'Global mode' });
  await expect(section.getByTestId('lock-note')).toHaveText('Set by your organisation');
  for (const radio of await modes.getByRole('radio').all()) {
    await expect(radio).toBeDisabled();
    await expect(radio).toHaveAccessibleDescription('Set by your organisation');
  }
  await expect(modes.getByRole('radio', { name: /Ask before every tool call/ })).toBeChecked();

  // The timeout is the organisation's default, still the person's to change.
  const timeout = dialog.getByRole('region', { name: 'Approval timeout' });
  await expect(timeout.getByText('Organisation default')).toBeVisible();
  await expect(timeout.getByLabel('Seconds a call waits for you')).toBeEnabled();
  await expect(timeout.getByLabel('Seconds a call waits for you')).toHaveValue('120');

  // The locked tool: disabled select, lock note next to it; its neighbour stays editable.
  const files = dialog.getByRole('list', { name: 'Server and tool settings' }).getByRole('listitem', { name: 'Files' });
  await files.getByRole('button', { name: /^Files \d+ tools?/, expanded: false }).click();
  const write = files.getByLabel('Approval for Files write_file');
  await expect(write).toBeDisabled();
  await expect(write).toHaveValue('always-ask');
  await expect(write).toHaveAccessibleDescription('Set by your organisation');
  await expect(files.getByRole('row').filter({ hasText: 'write_file' }).getByTestId('lock-note')).toBeVisible();
  await expect(files.getByLabel('Approval for Files read_text_file')).toBeEnabled();

  // The locked rule is listed with the organisation's, locked.
  const orgRules = dialog.getByRole('list', { name: "Your organisation's rules" });
  await expect(orgRules.getByRole('listitem').filter({ hasText: 'move_file' })).toContainText(
    'Set by your organisation',
  );
  // A lock on servers named by what they run says what it matches and what it locks.
  const identityLock = orgRules.getByTestId('identity-lock');
  await expect(identityLock).toContainText("servers running command 'npx' and package '@acme/*'");
  await expect(identityLock).toContainText('auto-approve: off; tool push: always-ask');
  await expect(identityLock).toHaveAccessibleDescription('Set by your organisation');

  // The lock holds below the UI too.
  await expect(workbench.call('policy.update', { mode: 'never-ask' })).rejects.toThrow(/Set by your organisation/);
  await expect(workbench.call('policy.update', { tools: { Files: { write_file: 'auto-approve' } } })).rejects.toThrow(
    /locked/,
  );

  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.mouse.move(5, 5);
    await dialog.getByRole('region', { name: 'Global mode' }).scrollIntoViewIfNeeded();
    await page.screenshot({
      path: path.join(SCREENSHOTS, `organisation-lock-mode-${scheme}.png`),
      animations: 'disabled',
      caret: 'hide',
    });
    await checkAccessibility(page, `organisation-lock-mode-${scheme}`);
    await write.scrollIntoViewIfNeeded();
    await page.screenshot({
      path: path.join(SCREENSHOTS, `organisation-lock-tools-${scheme}.png`),
      animations: 'disabled',
      caret: 'hide',
    });
    await checkAccessibility(page, `organisation-lock-tools-${scheme}`);
    await orgRules.scrollIntoViewIfNeeded();
    await page.screenshot({
      path: path.join(SCREENSHOTS, `organisation-lock-rules-${scheme}.png`),
      animations: 'disabled',
      caret: 'hide',
    });
    await checkAccessibility(page, `organisation-lock-rules-${scheme}`);
  }
});

test('a locked audit sink is listed on Audit shipping with a lock, and cannot be edited or removed', async ({
  page,
  workbench,
}) => {
  const dialog = await openSettings(page, workbench, 'Audit shipping');
  const sink = dialog.getByTestId('sink-org-siem');
  await expect(sink).toBeVisible();
  await expect(sink.getByTestId('lock-note')).toHaveText('Set by your organisation');
  await expect(sink).toContainText('127.0.0.1:9');
  await expect(sink.getByRole('button', { name: 'Edit org-siem' })).toHaveCount(0);
  await expect(sink.getByRole('button', { name: 'Remove org-siem' })).toHaveCount(0);
  // Its progress shows like any sink's (rows waiting, and the error of a receiver that is not there).
  await expect(sink.getByTestId('sink-lag')).not.toHaveText('…');

  // The lock holds below the UI too.
  const listed = (await workbench.call('audit.shippingSinks', undefined)) as {
    sinks: unknown[];
    locked: { id: string }[];
  };
  expect(listed.locked.map((locked) => locked.id)).toEqual(['org-siem']);
  await expect(workbench.call('audit.removeShippingSink', { id: 'org-siem' })).rejects.toThrow(
    /set by your organisation/,
  );
  await expect(
    workbench.call('audit.saveShippingSink', {
      sink: { type: 'syslog', id: 'org-siem', host: '127.0.0.1', port: 514 },
    }),
  ).rejects.toThrow(/set by your organisation/);

  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.mouse.move(5, 5);
    await page.screenshot({
      path: path.join(SCREENSHOTS, `organisation-lock-sink-${scheme}.png`),
      animations: 'disabled',
      caret: 'hide',
    });
    await checkAccessibility(page, `organisation-lock-sink-${scheme}`);
  }
});
