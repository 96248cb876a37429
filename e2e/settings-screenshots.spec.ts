/**
 * Screenshots of every settings page and its main states, light and dark, in test-results/screens/settings/.
 * Each state is asserted before it is taken.
 */
import { expect, test } from './fixtures';
import { filesReady, openSettings, runAllowedCall, runApprovalCycle, shoot } from './settings-helpers';

for (const scheme of ['light', 'dark'] as const) {
  test(`${scheme}: every settings page`, async ({ page, workbench }) => {
    // Every page shot and checked by axe in one test: about 72 s on a loaded CI host, more than the default allows.
    test.setTimeout(180_000);
    await page.emulateMedia({ colorScheme: scheme });
    await filesReady(workbench);
    await workbench.call('providers.add', {
      kind: 'anthropic',
      label: 'Anthropic (work)',
      apiKey: 'sk-ant-screenshot',
      defaultModel: 'claude-sonnet-4-5',
    });
    await workbench.call('providers.add', {
      kind: 'openai-compatible',
      label: 'Ollama on this machine',
      baseURL: 'http://127.0.0.1:9/v1',
    });
    const busy = await runApprovalCycle(workbench, {
      title: 'Plan the release',
      decision: 'TOOL_CALL_DECISION_ALLOW_SESSION',
    });
    await runAllowedCall(workbench, busy);
    await runApprovalCycle(workbench, {
      title: 'Tidy the downloads folder',
      decision: 'TOOL_CALL_DECISION_DENY',
      reason: 'not this folder',
    });
    await workbench.call('policy.update', {
      tools: { Files: { write_file: 'always-ask', read_text_file: 'auto-approve' } },
      rules: {
        add: [
          {
            id: 'no-system-files',
            effect: 'deny',
            server: '*',
            tool: 'write_*',
            args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
            note: 'system files',
          },
          {
            id: 'read-docs',
            effect: 'allow',
            server: 'Files',
            tool: 'read_*',
            args: [{ pointer: '/path', match: 'glob', value: '~/Documents/**' }],
          },
        ],
      },
    });

    await page.goto(workbench.url);
    await expect(page.getByTestId('open-settings')).toBeVisible();
    await page.getByTestId('open-settings').focus();
    await shoot(page, `${scheme}-00-sidebar-entry`);
    const dialog = await openSettings(page, workbench, 'Providers');
    await expect(dialog.getByRole('listitem', { name: 'Anthropic (work)' }).getByTestId('key-state')).toHaveText('Set');
    await dialog
      .getByRole('listitem', { name: 'Ollama on this machine' })
      .getByRole('button', { name: 'Test connection' })
      .click();
    await expect(dialog.getByRole('alert')).toContainText('Connection failed');
    await shoot(page, `${scheme}-01-providers`);
    await dialog.getByRole('button', { name: 'Edit Anthropic (work)' }).click();
    await expect(page.getByTestId('provider-form')).toBeVisible();
    await shoot(page, `${scheme}-02-provider-edit`);
    await page.getByTestId('provider-form').getByRole('button', { name: 'Cancel' }).click();

    await dialog.getByRole('tab', { name: 'MCP servers' }).click();
    await expect(dialog.getByRole('table', { name: 'Tools of Files' })).toBeVisible();
    await shoot(page, `${scheme}-03-servers-tools`);
    await dialog.getByRole('tab', { name: 'Logs' }).click();
    await expect(dialog.getByLabel('Log of Files')).not.toBeEmpty();
    await shoot(page, `${scheme}-04-servers-logs`);
    await dialog.getByRole('button', { name: 'Add server' }).click();
    await expect(page.getByTestId('server-form')).toBeVisible();
    await shoot(page, `${scheme}-05-server-add`);
    await page.getByTestId('server-form').getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('button', { name: 'Import…' }).click();
    const importer = page.getByTestId('import-dialog');
    await importer.getByLabel('Import from').selectOption('file');
    const config = {
      mcpServers: {
        Files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'] },
        github: {
          command: 'docker',
          args: ['run', '-i', 'ghcr.io/github/github-mcp-server'],
          env: { GITHUB_TOKEN: 'x' },
        },
        broken: { nothing: true },
      },
    };
    await importer.getByLabel('Config file').setInputFiles({
      name: 'claude_desktop_config.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(config)),
    });
    await importer.getByRole('button', { name: 'Preview' }).click();
    await expect(importer.getByLabel('Import preview')).toBeVisible();
    await shoot(page, `${scheme}-06-import-preview`);
    await importer.getByRole('button', { name: 'Cancel' }).click();

    await dialog.getByRole('tab', { name: 'Approvals' }).click();
    await expect(dialog.getByRole('list', { name: 'Your rules' })).toBeVisible();
    await shoot(page, `${scheme}-07-approvals-top`);
    await dialog.getByRole('button', { name: /^Files \d+ tools?/, expanded: false }).click();
    await dialog.getByRole('heading', { name: 'Rules' }).scrollIntoViewIfNeeded();
    await shoot(page, `${scheme}-08-approvals-rules`);
    await dialog.getByRole('table', { name: 'Chat grants' }).scrollIntoViewIfNeeded();
    await shoot(page, `${scheme}-09-approvals-grants`);
    await dialog.getByRole('button', { name: 'Add rule' }).click();
    const editor = page.getByTestId('rule-editor');
    await editor.getByLabel('Server (glob)').fill('Files');
    await editor.getByLabel('Tool (glob)').fill('write_*');
    await editor.getByRole('button', { name: 'Add condition' }).click();
    await editor.getByLabel('Match').selectOption('regex');
    await editor.getByLabel('Value').fill('(a+)+$');
    await editor.getByRole('button', { name: 'Save rule' }).click();
    await expect(editor.getByLabel('Value')).toHaveAttribute('aria-invalid', 'true');
    await shoot(page, `${scheme}-10-rule-refused`);
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('radio', { name: /Never ask/ }).click();
    await shoot(page, `${scheme}-11-never-ask-confirm`);
    await page
      .getByRole('dialog', { name: 'Turn approvals off?' })
      .getByRole('button', { name: 'Turn approvals off' })
      .click();
    await expect(dialog.getByTestId('never-ask-warning')).toBeVisible();
    await dialog.getByRole('heading', { name: 'Approvals', level: 2 }).scrollIntoViewIfNeeded();
    await shoot(page, `${scheme}-12-never-ask-warning`);

    await dialog.getByRole('tab', { name: 'Audit log' }).click();
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await expect(dialog.getByTestId('verify-result')).toContainText('The chain is intact');
    await shoot(page, `${scheme}-13-audit`);
    await dialog.getByRole('table', { name: 'Audit log' }).locator('tbody tr').filter({ hasText: 'Denied' }).click();
    await expect(page.getByTestId('audit-detail')).toBeVisible();
    await shoot(page, `${scheme}-14-audit-detail`);
  });
}
