/**
 * The organisation's identity provider for cross-app access (docs/user/organisation-policy.md#oauth) on the server
 * form: set by the policy for the server it names, locked, shown with "Set by your organisation", its fields disabled
 * and described by that note, the secret it gives never on the page; the person's ID token stays theirs to give. The
 * add form says which identity provider a server will sign in through as its name and URL are typed, and Settings →
 * Approvals lists the organisation's identity providers. Shot in light and dark, with axe.
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
      {
        serverIdentity: { url: 'https://*.tools.example/**' },
        idpIssuer: 'https://idp.example.org',
        idpClientId: 'wb-tools',
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
  await expect(note).toContainText(
    "Set by your organisation: its policy names this server's identity provider, https://login.example.com (client wb-at-idp)",
  );
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

test("the add form says which of the organisation's identity providers the URL typed signs in through", async ({
  page,
  workbench,
}) => {
  await filesReady(workbench);
  await page.setViewportSize({ width: 1280, height: 900 });
  const dialog = await openSettings(page, workbench, 'MCP servers');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByTestId('server-form');
  await form.getByRole('radio', { name: 'A URL (HTTP)' }).check({ force: true });
  const group = form.getByRole('group', { name: 'Cross-app access (optional)' });
  const note = group.getByTestId('organisation-idp');
  const issuer = group.getByLabel('Identity provider (issuer URL)');

  // A URL no entry names: nothing of the organisation's.
  await form.getByLabel('Name', { exact: true }).fill('crm');
  await form.getByLabel('URL', { exact: true }).fill('https://elsewhere.example.com/mcp');
  await expect(group).toBeVisible();
  await expect(note).toHaveCount(0);
  await expect(issuer).toBeEnabled();

  // An entry by URL that is a default: named, marked "Organisation default", the fields stay the person's.
  await form.getByLabel('Name', { exact: true }).fill('notes');
  await form.getByLabel('URL', { exact: true }).fill('https://notes.tools.example/mcp');
  await expect(note).toContainText('Organisation default');
  await expect(note).toContainText(
    "its policy names this server's identity provider, https://idp.example.org (client wb-tools), while you set none of your own",
  );
  await expect(issuer).toBeEnabled();
  await expect(issuer).toHaveValue('');

  // The locked entry for the name "crm": which one, set by the organisation, its fields disabled and filled.
  await form.getByLabel('Name', { exact: true }).fill('crm');
  await form.getByLabel('URL', { exact: true }).fill('https://mcp.crm.example/mcp');
  await expect(note).toContainText(
    "Set by your organisation: its policy names this server's identity provider, https://login.example.com (client wb-at-idp), and the secret of its client there",
  );
  await expect(issuer).toHaveValue('https://login.example.com');
  await expect(issuer).toBeDisabled();
  await expect(issuer).toHaveAccessibleDescription(/Set by your organisation/);
  await expect(group.getByLabel('Client ID at the identity provider')).toHaveValue('wb-at-idp');
  await expect(group.getByLabel('Client secret at the identity provider')).toHaveCount(0);
  await expect(group.getByLabel('Your ID token')).toBeEnabled();
  expect(await page.content()).not.toContain(ORG_SECRET);
  await group.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-idp-add-form`);
  }

  // Added with the person's ID token alone: it signs in through the organisation's identity provider.
  await group.getByLabel('Your ID token').fill('eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2ln');
  await form.getByRole('button', { name: 'Add server' }).click();
  await expect(form).toBeHidden();
  const view = (await workbench.call('mcp.list')) as { servers: { name: string }[] };
  expect(view.servers.find((server) => server.name === 'crm')).toMatchObject({
    crossAppAccess: { idpIssuer: 'https://login.example.com', idpClientId: 'wb-at-idp' },
    crossAppAccessByOrganisation: { locked: true, clientSecret: true },
  });
  expect(JSON.stringify(view)).not.toContain(ORG_SECRET);
});

test("Settings → Approvals lists the organisation's identity providers, locked or a default, never a secret", async ({
  page,
  workbench,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const dialog = await openSettings(page, workbench, 'Approvals');
  const section = dialog.getByRole('region', { name: 'Sign-in through your organisation' });
  const entries = section.getByRole('list', { name: "Your organisation's identity providers" }).getByRole('listitem');
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toContainText("servers named 'crm'");
  await expect(entries.nth(0)).toContainText(
    "sign in through https://login.example.com as client 'wb-at-idp', with the client secret your organisation gives (not shown)",
  );
  await expect(entries.nth(0)).toHaveAccessibleDescription('Set by your organisation');
  await expect(entries.nth(1)).toContainText("servers reached at URL 'https://*.tools.example/**'");
  await expect(entries.nth(1)).toContainText("sign in through https://idp.example.org as client 'wb-tools'");
  await expect(entries.nth(1)).toContainText('Organisation default');
  expect(await page.content()).not.toContain(ORG_SECRET);
  await section.scrollIntoViewIfNeeded();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-organisation-idp-approvals`);
  }
});
