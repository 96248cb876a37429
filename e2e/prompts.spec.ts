/**
 * A server's prompts as slash commands (docs/user/mcp-servers.md#prompts), against the real
 * server-everything: "/" lists them, a prompt with arguments opens a form with the server's suggestions, and its text
 * lands in the message box to be read before it is sent.
 */
import { checkAccessibility } from './axe';
import { chatUi, shoot } from './chat-ui';
import { expect, test } from './fixtures';

test.describe.configure({ timeout: 90_000 });

test('"/" lists the prompts; one with arguments asks for them with suggestions, and its text is put in the box to send', async ({
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
          (await workbench.call('mcp.prompts', { name: 'Everything' }).catch(() => ({ prompts: [] }))) as {
            prompts: unknown[];
          }
        ).prompts.length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  await page.goto(workbench.url);
  await page.getByRole('button', { name: 'Start a new chat' }).click();
  const view = chatUi(page);
  await expect(view.input).toBeEnabled();

  await view.input.fill('/');
  const list = page.getByRole('listbox', { name: 'Prompts of your MCP servers' });
  await expect(list.getByRole('option')).toHaveCount(4);
  await view.input.fill('/comp');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(list.getByRole('option', { selected: true })).toContainText('/completable-prompt');
  await expect(view.input).toHaveAttribute(
    'aria-activedescendant',
    (await list.getByRole('option', { selected: true }).getAttribute('id')) ?? '',
  );
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-41-slash-prompts`);
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // Escape closes the list; the text stays.
  await view.input.press('Escape');
  await expect(list).toHaveCount(0);
  await expect(view.input).toHaveValue('/comp');

  // Arrows and Enter choose; the form asks for the arguments, with the server's suggestions.
  await view.input.fill('/args');
  await expect(list.getByRole('option')).toHaveCount(1);
  await view.input.fill('/');
  await expect(list.getByRole('option')).toHaveCount(4);
  await view.input.fill('/completable');
  await view.input.press('Enter');
  const form = page.getByTestId('prompt-form');
  await expect(form).toContainText('/completable-prompt from Everything');
  const department = form.getByRole('combobox', { name: /^department/ });
  await expect(department).toBeFocused();
  await department.fill('Eng');
  await expect(form.locator('datalist option').first()).toHaveAttribute('value', 'Engineering');
  await form.getByRole('button', { name: 'Insert into message' }).click();
  await expect(form.getByRole('alert')).toHaveText('Fill in name first.');
  await department.fill('Engineering');
  await form.getByRole('combobox', { name: /^name/ }).fill('Alice');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(page, `${scheme}-42-prompt-form`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await form.getByRole('button', { name: 'Insert into message' }).click();
  await expect(form).toHaveCount(0);
  await expect(view.input).toHaveValue('Please promote Alice to the head of the Engineering team.');
  await expect(view.input).toBeFocused();
  // Nothing was sent yet: the person reads it, then sends it.
  await expect(view.userMessages).toHaveCount(0);
  await view.input.press('Enter');
  await expect(view.userMessages).toHaveText(['Please promote Alice to the head of the Engineering team.']);
  await expect(view.assistantMessages).toHaveCount(1);

  // A prompt without arguments goes straight into the box; a server's refusal is shown in the form.
  await view.input.fill('/simple');
  await view.input.press('Tab');
  await expect(view.input).toHaveValue('This is a simple prompt without arguments.');
  await view.input.fill('/resource-prompt');
  await view.input.press('Enter');
  await form.getByRole('combobox', { name: /^resourceType/ }).fill('Neither');
  await form.getByRole('combobox', { name: /^resourceId/ }).fill('1');
  await form.getByRole('button', { name: 'Insert into message' }).click();
  await expect(form.getByRole('alert')).toContainText('Must be Text or Blob');
  await checkAccessibility(page, 'prompt form with a refusal');
  await form.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toHaveCount(0);
  await expect(view.input).toBeFocused();
});
