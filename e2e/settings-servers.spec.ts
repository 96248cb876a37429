/** Settings → MCP servers in browser mode, against real MCP servers run as child processes. */
import { expect, test } from './fixtures';
import { filesReady, openSettings } from './settings-helpers';

interface PolicyView {
  policy: { tools: Record<string, Record<string, string>> };
}

test('add a bundled server, see it start, its tools and log; disable, enable, restart, trust, remove', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'MCP servers');
  const list = dialog.getByRole('list', { name: 'Servers' });
  await expect(list.getByRole('button', { name: /Files/ })).toContainText('Running');

  await dialog.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByTestId('server-form');
  await form.getByLabel('Name', { exact: true }).fill('Memory');
  await form.getByText('Bundled with the app').click();
  await form.getByLabel('Bundled server').selectOption('@modelcontextprotocol/server-memory');
  await form.getByLabel('Environment variables').fill('MEMORY_FILE_PATH');
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form.getByRole('alert')).toHaveText('Line 1 must read NAME=value.');
  await form.getByLabel('Environment variables').fill(`MEMORY_FILE_PATH=${workbench.dataDir}/memory-e2e.jsonl`);
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form).toBeHidden();

  const detail = dialog.getByRole('region', { name: 'Server Memory' });
  await expect(detail.getByTestId('server-status')).toHaveText('Running', { timeout: 15_000 });
  await expect(detail).toContainText('MEMORY_FILE_PATH=••••');
  expect(await page.content()).not.toContain('memory-e2e.jsonl');
  const tools = detail.getByRole('table', { name: 'Tools of Memory' });
  await expect(tools.getByRole('row', { name: /read_graph/ })).toContainText('Read-only');
  await expect(tools.getByRole('row', { name: /read_graph/ })).toContainText('Declared by the server');

  await detail.getByRole('tab', { name: 'Logs' }).click();
  await expect(detail.getByLabel('Log of Memory')).toContainText(/Knowledge Graph MCP Server running on stdio|start/i);

  // Disable: stopped, no tools; enable again: running.
  const enabled = detail.getByRole('switch', { name: 'Enabled' });
  await enabled.click();
  await expect(detail.getByTestId('server-status')).toHaveText('Disabled');
  await expect(enabled).toHaveAttribute('aria-checked', 'false');
  await expect(detail.getByRole('button', { name: 'Restart' })).toBeDisabled();
  await enabled.click();
  await expect(detail.getByTestId('server-status')).toHaveText('Running', { timeout: 15_000 });

  // Restart: a new process.
  const pidBefore = (
    (await workbench.call('mcp.list')) as { servers: { name: string; status: { pid?: number } }[] }
  ).servers.find((server) => server.name === 'Memory')?.status.pid;
  await detail.getByRole('button', { name: 'Restart' }).click();
  await expect
    .poll(async () => {
      const status = (
        (await workbench.call('mcp.list')) as { servers: { name: string; status: { pid?: number; state: string } }[] }
      ).servers.find((server) => server.name === 'Memory')?.status;
      return status?.state === 'ready' && status.pid !== pidBefore;
    })
    .toBe(true);
  await expect(detail.getByTestId('server-status')).toHaveText('Running');

  // Trust is the server's own flag (mcp.edit trusted), and the tools' annotations then count.
  const trust = detail.getByRole('switch', { name: "Trust this server's annotations" });
  await trust.click();
  await expect(trust).toHaveAttribute('aria-checked', 'true');
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.list')) as { servers: { name: string; trusted: boolean }[] }).servers.find(
          (server) => server.name === 'Memory',
        )?.trusted,
    )
    .toBe(true);
  await detail.getByRole('tab', { name: 'Tools' }).click();
  await expect(tools.getByRole('row', { name: /read_graph/ })).not.toContainText('Declared by the server');

  // Edit: rename the display name.
  await detail.getByRole('button', { name: 'Edit' }).click();
  await page.getByTestId('server-form').getByLabel('Display name (optional)').fill('Knowledge graph');
  await page.getByTestId('server-form').getByRole('button', { name: 'Save' }).click();
  await expect(list.getByRole('button', { name: /Knowledge graph/ })).toBeVisible();

  await detail.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('dialog', { name: 'Remove Knowledge graph?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(list.getByRole('button', { name: /Knowledge graph/ })).toBeHidden();
  expect(
    ((await workbench.call('mcp.list')) as { servers: { name: string }[] }).servers.map((server) => server.name),
  ).toEqual(['Files']);
});

test('a per-tool approval setting from the server page lands in the policy', async ({ page, workbench }) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'MCP servers');
  const tools = dialog.getByRole('table', { name: 'Tools of Files' });
  await expect(tools.getByRole('row', { name: /write_file/ })).toContainText('Destructive');
  await tools.getByLabel('Approval for read_text_file').selectOption('auto-approve');
  await expect
    .poll(async () => ((await workbench.call('policy.get')) as PolicyView).policy.tools)
    .toEqual({ Files: { read_text_file: 'auto-approve' } });
  await tools.getByLabel('Approval for read_text_file').selectOption('inherit');
  await expect.poll(async () => ((await workbench.call('policy.get')) as PolicyView).policy.tools).toEqual({});
});

test('import shows a preview first and adds only the servers ticked', async ({ page, workbench }) => {
  await filesReady(workbench);
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('button', { name: 'Import…' }).click();
  const importer = page.getByTestId('import-dialog');
  await importer.getByLabel('Import from').selectOption('file');
  const config = {
    mcpServers: {
      Files: { command: 'node', args: ['files.js'] },
      weather: { command: 'node', args: ['weather server.js'], env: { WEATHER_KEY: 'secret-weather-key' } },
      remote: { url: 'https://example.com/mcp', disabled: true },
    },
  };
  await importer.getByLabel('Config file').setInputFiles({
    name: 'claude_desktop_config.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(config)),
  });
  await importer.getByRole('button', { name: 'Preview' }).click();
  const preview = importer.getByLabel('Import preview');
  await expect(preview).toContainText('claude_desktop_config.json');
  await expect(preview.getByRole('row', { name: /weather/ })).toContainText('WEATHER_KEY');
  await expect(preview).not.toContainText('secret-weather-key');
  await expect(preview.getByRole('row', { name: /Files-2|renamed/ })).toContainText('renamed from “Files”');
  // Nothing is added by the preview.
  expect(((await workbench.call('mcp.list')) as { servers: unknown[] }).servers).toHaveLength(1);

  await preview.getByRole('checkbox', { name: 'Import Files' }).uncheck();
  await preview.getByRole('checkbox', { name: 'Import remote' }).uncheck();
  await importer.getByRole('button', { name: 'Import 1 server' }).click();
  await expect(importer.getByRole('status')).toHaveText('Imported 1 server: weather.');
  await importer.getByRole('button', { name: 'Done' }).click();
  await expect(dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /weather/ })).toBeVisible();
  expect(
    ((await workbench.call('mcp.list')) as { servers: { name: string }[] }).servers.map((server) => server.name).sort(),
  ).toEqual(['Files', 'weather']);
});
