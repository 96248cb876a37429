/**
 * Cross-app access on the server form (docs/user/mcp-oauth.md#cross-app-access): the identity provider, the client
 * there and the ID token are given in Settings; the secrets are write-only (never shown again, never in settings.json)
 * and the server's page keeps the identity provider. Shot in light and dark, with axe.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from './fixtures';
import { filesReady, openSettings, shoot } from './settings-helpers';

const ID_TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJl';

test('a server signed in to through the identity provider is set up on the form; its secrets stay secret', async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.setViewportSize({ width: 1280, height: 900 });
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByTestId('server-form');
  await form.getByLabel('Name', { exact: true }).fill('crm');
  await form.getByRole('radio', { name: 'A URL (HTTP)' }).check({ force: true });
  await form.getByLabel('URL', { exact: true }).fill('https://mcp.crm.example/mcp');
  await form.getByLabel('OAuth client ID (optional)').fill('wb-crm');
  const group = form.getByRole('group', { name: 'Cross-app access (optional)' });
  await group.getByLabel('Identity provider (issuer URL)').fill('https://login.example.com');
  await group.getByLabel('Client ID at the identity provider').fill('wb-at-idp');
  await group.getByLabel('Client secret at the identity provider').fill('idp-secret-value');
  await group.getByLabel('Your ID token').fill(ID_TOKEN);
  await group.getByLabel("Client secret at the server's authorization server").fill('crm-secret-value');
  await expect(group.getByLabel('Your ID token')).toHaveAttribute('type', 'password');
  await group.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-cross-app-access-form`);
  }
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form).toBeHidden();

  const settings = await fs.readFile(path.join(workbench.dataDir, 'settings.json'), 'utf8');
  const stored = JSON.parse(settings) as { mcpServers: Record<string, Record<string, unknown>> };
  expect(stored.mcpServers.crm).toMatchObject({
    url: 'https://mcp.crm.example/mcp',
    oauthClientId: 'wb-crm',
    crossAppAccess: { idpIssuer: 'https://login.example.com', idpClientId: 'wb-at-idp' },
  });
  for (const secret of [ID_TOKEN, 'idp-secret-value', 'crm-secret-value']) expect(settings).not.toContain(secret);

  // Editing shows the identity provider again, never the secrets.
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /crm/ }).click();
  await dialog.getByRole('region', { name: 'Server crm' }).getByRole('button', { name: 'Edit' }).click();
  await expect(group.getByLabel('Identity provider (issuer URL)')).toHaveValue('https://login.example.com');
  await expect(group.getByLabel('Your ID token')).toHaveValue('');
  await expect(page.getByText(ID_TOKEN)).toHaveCount(0);
});
