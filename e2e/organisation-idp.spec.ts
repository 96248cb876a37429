/**
 * The organisation's identity provider for cross-app access (docs/user/organisation-policy.md#oauth) on the server
 * form: set by the policy for the server it names, locked, shown with "Set by your organisation", its fields disabled
 * and described by that note, the secret it gives never on the page; the person's ID token stays theirs to give.
 * Shot in light and dark, with axe.
 */
import { expect, test } from './fixtures';
import { useManagedPolicy } from './managed-policy';
import { filesReady, openSettings, shoot } from './settings-helpers';

const ORG_SECRET = 'organisation-idp-secret-value';

useManagedPolicy({
  oauth: {
    crossAppAccess: [
      {
        server: 'crm',
        idpIssuer: 'https://login.example.com',
        idpClientId: 'wb-at-idp',
        idpClientSecret: ORG_SECRET,
        locked: true,
      },
    ],
  },
});

test("the server form shows the organisation's identity provider, locked; its secret is never shown", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await workbench.call('mcp.add', { name: 'crm', server: { url: 'https://mcp.crm.example/mcp', enabled: false } });
  await page.setViewportSize({ width: 1280, height: 900 });
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('button', { name: /crm/ }).click();
  await dialog.getByRole('region', { name: 'Server crm' }).getByRole('button', { name: 'Edit' }).click();
  const form = page.getByTestId('server-form');
  const group = form.getByRole('group', { name: 'Cross-app access (optional)' });
  const note = group.getByTestId('organisation-idp');
  await expect(note).toContainText("Set by your organisation: its policy names this server's identity provider");
  await expect(note).toContainText('and the secret of its client there');
  const issuer = group.getByLabel('Identity provider (issuer URL)');
  await expect(issuer).toHaveValue('https://login.example.com');
  await expect(issuer).toBeDisabled();
  await expect(issuer).toHaveAccessibleDescription(/Set by your organisation/);
  await expect(group.getByLabel('Client ID at the identity provider')).toHaveValue('wb-at-idp');
  await expect(group.getByLabel('Client ID at the identity provider')).toBeDisabled();
  // The organisation gives the secret: there is no field for it, and it is nowhere on the page.
  await expect(group.getByLabel('Client secret at the identity provider')).toHaveCount(0);
  await expect(group.getByLabel('Your ID token')).toBeEnabled();
  expect(await page.content()).not.toContain(ORG_SECRET);
  await group.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-idp-form`);
  }

  // Saving the form keeps the organisation's identity provider and sends the person's ID token only.
  await group.getByLabel('Your ID token').fill('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2ln');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  const view = (await workbench.call('mcp.list')) as { servers: { name: string }[] };
  const crm = view.servers.find((server) => server.name === 'crm');
  expect(crm).toMatchObject({
    crossAppAccess: { idpIssuer: 'https://login.example.com', idpClientId: 'wb-at-idp' },
    crossAppAccessByOrganisation: { locked: true, clientSecret: true },
  });
  expect(JSON.stringify(view)).not.toContain(ORG_SECRET);
});
