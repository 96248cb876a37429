/** Settings → Providers in browser mode: add, edit, test, models and remove; a key is never shown. */
import { expect, test } from './fixtures';
import { openSettings } from './settings-helpers';
import { checkAccessibility } from './axe';

const SECRET = 'sk-test-THIS-MUST-NEVER-APPEAR-1234567890';

test('add, edit, test and remove providers; the key is write-only', async ({ page, workbench }) => {
  const dialog = await openSettings(page, workbench, 'Providers');
  const providers = dialog.getByRole('list', { name: 'Providers' });

  // A first launch has the offline Demo provider: no key needed, test connection works, models are listed.
  const demo = providers.getByRole('listitem', { name: 'Demo — not an AI model' });
  await expect(demo.getByTestId('key-state')).toHaveText('None needed — it runs offline');
  await demo.getByRole('button', { name: 'Test connection' }).click();
  await expect(demo.getByRole('status')).toContainText(/Connected — \d+ models? available/);
  await demo.getByRole('button', { name: 'Models' }).click();
  await expect(demo.getByLabel('Models of Demo — not an AI model').getByRole('listitem').first()).toBeVisible();

  // An OpenAI-compatible server: the base URL is required and checked; the key goes in and never comes out.
  await dialog.getByRole('button', { name: 'Add provider' }).click();
  const form = page.getByTestId('provider-form');
  await form.getByLabel('Kind').selectOption('openai-compatible');
  await form.getByLabel('Name').fill('Local server');
  await form.getByLabel('Base URL').fill('ftp://example.com');
  await form.getByLabel('API key (optional)').fill(SECRET);
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form.getByRole('alert')).toContainText('must be an http:// or https:// URL');
  await form.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await form.getByRole('button', { name: 'Add provider' }).click();
  await expect(form).toBeHidden();
  const local = providers.getByRole('listitem', { name: 'Local server' });
  await expect(local.getByTestId('key-state')).toHaveText('Set');
  await expect(local).toContainText('http://127.0.0.1:9/v1');
  await local.getByRole('button', { name: 'Test connection' }).click();
  await expect(local.getByRole('alert')).toContainText('Connection failed');

  // Editing shows that a key is set, never the key; renaming keeps it; removing it is explicit.
  await local.getByRole('button', { name: 'Edit Local server' }).click();
  const keyField = form.getByLabel('API key (optional)');
  await expect(keyField).toHaveValue('');
  await expect(keyField).toHaveAttribute('placeholder', /set/);
  await form.getByLabel('Name').fill('Local LLM');
  await form.getByLabel('Default model').fill('llama3');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form).toBeHidden();
  const renamed = providers.getByRole('listitem', { name: 'Local LLM' });
  await expect(renamed).toContainText('llama3');
  await expect(renamed.getByTestId('key-state')).toHaveText('Set');

  await renamed.getByRole('button', { name: 'Edit Local LLM' }).click();
  await form.getByLabel('Remove the key').check();
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(renamed.getByTestId('key-state')).toHaveText('Not set');

  // The secret never reached the page, not even in a hidden attribute.
  expect(await page.content()).not.toContain(SECRET);

  await renamed.getByRole('button', { name: 'Remove Local LLM' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove Local LLM?' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(renamed).toBeHidden();
  const listed = (await workbench.call('providers.list')) as { providers: { label: string }[] };
  expect(listed.providers.map((provider) => provider.label)).toEqual(['Demo — not an AI model']);

  // Escape closes the settings.
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('a removal that fails says why inside the confirmation, which stays open', async ({ page, workbench }) => {
  const dialog = await openSettings(page, workbench, 'Providers');
  const demo = dialog
    .getByRole('list', { name: 'Providers' })
    .getByRole('listitem', { name: 'Demo — not an AI model' });
  await demo.getByRole('button', { name: 'Remove Demo — not an AI model' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove Demo — not an AI model?' });
  // Another window (or the CLI) removes it first.
  await workbench.call('providers.remove', { id: 'demo' });
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(confirm.getByRole('alert')).toHaveText('No provider has the id demo.');
  await expect(confirm.getByRole('button', { name: 'Remove' })).toBeEnabled();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(dialog).toBeVisible();
});

test('local models: Ollama and LM Studio at their default addresses, a Test that says nothing listens, and Add', async ({
  page,
  workbench,
}) => {
  const dialog = await openSettings(page, workbench, 'Providers');
  const local = dialog.getByRole('list', { name: 'Local model servers' });
  const ollama = local.getByRole('listitem', { name: 'Ollama' });
  const lmStudio = local.getByRole('listitem', { name: 'LM Studio' });
  await expect(ollama).toContainText('http://localhost:11434/v1');
  await expect(lmStudio).toContainText('http://localhost:1234/v1');

  // Nothing runs on these ports here: the Test says so in words, not as a stack of network errors.
  await ollama.getByRole('button', { name: 'Test Ollama' }).click();
  await expect(ollama.getByRole('alert')).toHaveText('Nothing is listening on localhost:11434 — is Ollama running?');

  // Add: an OpenAI-compatible provider without a key, at the default address; the offer then says it was added.
  await lmStudio.getByRole('button', { name: 'Add LM Studio' }).click();
  const added = dialog.getByRole('list', { name: 'Providers' }).getByRole('listitem', { name: 'LM Studio' });
  await expect(added).toContainText('http://localhost:1234/v1');
  await expect(added.getByTestId('key-state')).toHaveText('Not set');
  await expect(lmStudio.getByText('Added')).toBeVisible();
  await expect(lmStudio.getByRole('button', { name: 'Add LM Studio' })).toHaveCount(0);

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.mouse.move(5, 5);
    await dialog.getByTestId('local-servers').scrollIntoViewIfNeeded();
    await page.screenshot({
      path: `.cache/screenshots/providers-local-${scheme}.png`,
      animations: 'disabled',
      caret: 'hide',
    });
    await checkAccessibility(page, `providers-local-${scheme}`);
  }
});
