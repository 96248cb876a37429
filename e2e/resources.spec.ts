/**
 * Attaching a resource to a message (docs/user/mcp-servers.md#resources), against the real
 * server-everything: the picker lists its resources and templates, a chosen one is read and shown as a chip, and
 * the model (the scripted fake server) gets its contents after the person's words.
 */
import { chatUi, scriptedChat, shoot } from './chat-ui';
import { expect, test, type Workbench } from './fixtures';

test.describe.configure({ timeout: 90_000 });

/** server-everything added, the tool allowed without asking, and ready (its tools listed). */
async function everythingWith(workbench: Workbench, tool: string): Promise<void> {
  await workbench.call('mcp.add', {
    name: 'Everything',
    server: { package: '@modelcontextprotocol/server-everything' },
  });
  await workbench.call('policy.update', { tools: { Everything: { [tool]: 'auto-approve' } } });
  await expect
    .poll(
      async () =>
        ((await workbench.call('mcp.tools', { name: 'Everything' })) as { tools: { name: string }[] }).tools.some(
          (item) => item.name === tool,
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
}

test('a resource and a template attached from the picker go to the model with the message, shown as chips', async ({
  page,
  workbench,
}) => {
  await workbench.call('mcp.add', {
    name: 'Everything',
    server: { package: '@modelcontextprotocol/server-everything' },
  });
  await expect
    .poll(
      async () =>
        (
          (await workbench.call('mcp.resources', { name: 'Everything' }).catch(() => ({ resources: [] }))) as {
            resources: unknown[];
          }
        ).resources.length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  const { fake } = await scriptedChat(workbench, 'Resources');
  fake.script({ kind: 'reply', text: ['I read both.'] });
  await page.goto(workbench.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Resources');
  const view = chatUi(page);

  await page.getByRole('button', { name: 'Attach a resource' }).click();
  const picker = page.getByTestId('resource-picker');
  const everything = picker.getByRole('region', { name: 'Resources of Everything' });
  const first = everything.getByRole('listitem').first().getByRole('button');
  await expect(first).toBeVisible();
  const uri = (await first.locator('.resource-uri').textContent()) ?? '';
  expect(uri).toMatch(/^demo:\/\/resource\/static\/document\//);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-43-resource-picker`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await first.click();
  await expect(picker).toHaveCount(0);
  const chips = page.locator('.composer-area').getByTestId('attachment-chip');
  await expect(chips).toHaveCount(1);

  // A template: its variable filled in, then attached; a third one taken off again.
  await page.getByRole('button', { name: 'Attach a resource' }).click();
  const template = picker.getByRole('form', { name: /Template .*Text/ }).first();
  await template.getByRole('textbox', { name: 'resourceId' }).fill('3');
  await template.getByRole('button', { name: 'Attach' }).click();
  await expect(chips).toHaveCount(2);
  await expect(chips.nth(1)).toContainText('(3)');
  await page.getByRole('button', { name: 'Attach a resource' }).click();
  await picker
    .getByRole('form', { name: /Template .*Text/ })
    .first()
    .getByRole('textbox', { name: 'resourceId' })
    .fill('4');
  await picker
    .getByRole('form', { name: /Template .*Text/ })
    .first()
    .getByRole('button', { name: 'Attach' })
    .click();
  await expect(chips).toHaveCount(3);
  await chips
    .nth(2)
    .getByRole('button', { name: /^Remove / })
    .click();
  await expect(chips).toHaveCount(2);
  await view.input.fill('What do these say?');
  await shoot(page, 'light-44-attachments');

  await view.input.press('Enter');
  await expect(page.getByText('I read both.')).toBeVisible();
  await expect(chips).toHaveCount(0);
  await expect(view.pane.locator('.user-row').getByTestId('attachment-chip')).toHaveCount(2);
  const sent = JSON.stringify(fake.generations()[0]?.body);
  expect(sent).toContain('What do these say?');
  expect(sent).toContain(`<resource server=\\"Everything\\" uri=\\"${uri}\\"`);
  expect(sent).toContain('uri=\\"demo://resource/dynamic/text/3\\"');
  expect(sent).toContain('Resource 3');
  expect(sent).not.toContain('dynamic/text/4');
  await fake.close();
});

test("a resource_link in a tool's result is shown, not followed; a click reads it from that server into a dialog", async ({
  page,
  workbench,
}) => {
  await everythingWith(workbench, 'get-resource-links');
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await view.input.fill('/tool Everything__get-resource-links {"count": 2}');
  await view.input.press('Enter');
  const block = view.toolCalls.first();
  await expect(block).toContainText('Done');
  await block
    .getByRole('button', { name: /get-resource-links/ })
    .first()
    .click();
  const link = block.getByRole('button', { name: 'Text Resource 2' });
  await expect(link).toBeVisible();
  await expect(page.getByTestId('resource-view')).toHaveCount(0);
  await link.click();
  const dialog = page.getByTestId('resource-view');
  await expect(dialog.getByRole('heading')).toHaveText('Text Resource 2');
  await expect(dialog.locator('pre')).toContainText('Resource 2');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-45-resource-link`);
  }
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);
  await block.getByRole('button', { name: 'Blob Resource 1' }).click();
  await expect(page.getByTestId('resource-view')).toContainText(/Binary contents \(.*\): not shown\./);
});

test('an attached resource that changes on its server (a subscription) is marked on its chip, and Refresh reads it again', async ({
  page,
  workbench,
}) => {
  await everythingWith(workbench, 'toggle-subscriber-updates');
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await page.getByRole('button', { name: 'Attach a resource' }).click();
  const template = page
    .getByTestId('resource-picker')
    .getByRole('form', { name: /Template .*Text/ })
    .first();
  await template.getByRole('textbox', { name: 'resourceId' }).fill('1');
  await template.getByRole('button', { name: 'Attach' }).click();
  const chip = page.locator('.composer-area').getByTestId('attachment-chip');
  await expect(chip).toHaveCount(1);
  await expect(chip.getByRole('button', { name: /^Changed — refresh/ })).toHaveCount(0);

  // Another chat turns on server-everything's simulated updates (every 5 s for each subscription).
  const other = (await workbench.call('chat.create', { title: 'Updates', providerId: 'demo', model: 'demo' })) as {
    id: string;
  };
  await workbench.call('chat.send', {
    chatId: other.id,
    message: { role: 'user', text: '/tool Everything__toggle-subscriber-updates {}' },
  });
  const refresh = chip.getByRole('button', { name: /^Changed — refresh .*from Everything/ });
  await expect(refresh).toBeVisible({ timeout: 20_000 });
  await shoot(page, 'light-46-attachment-changed');
  await refresh.click();
  await expect(refresh).toHaveCount(0);
  await expect(view.input).toBeEnabled();
});
