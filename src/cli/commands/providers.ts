import { Option, type Command } from 'commander';
import { PROVIDER_KINDS } from '../../shared/closed-sets';
import { act, leaf, type ProgramOptions } from '../command-kit';
import { CliError } from '../exit-codes';
import { table } from '../terminal';

/** `workbench providers …`: the providers page of the app. API keys come from an environment variable, never argv. */
export function providersCommand(program: Command, options: ProgramOptions): void {
  const providers = program.command('providers').description('list, add, remove and test LLM providers');

  act(leaf(providers, 'list', 'the configured providers'), options, async (context) => {
    const { providers: list } = await context.session().call('providers.list');
    if (context.json) return context.terminal.json(list);
    const { colors } = context.terminal;
    context.terminal.line(
      table([
        ['ID', 'KIND', 'MODEL', 'KEY', 'LABEL'].map((cell) => colors.bold(cell)),
        ...list.map((provider) => [
          provider.id,
          provider.kind,
          provider.defaultModel ?? '-',
          provider.hasApiKey ? 'set' : provider.apiKeyRequired ? colors.yellow('missing') : '-',
          provider.label,
        ]),
      ]),
    );
  });

  act(
    leaf(providers, 'add', 'add a provider')
      .addOption(new Option('--kind <kind>', 'what it talks to').choices(PROVIDER_KINDS).makeOptionMandatory())
      .option('--id <id>', 'its id (made from the label when missing)')
      .option('--label <label>', 'its name in lists')
      .option('--base-url <url>', 'the server (required for openai-compatible, with the version path)')
      .option('--model <model>', 'the default model')
      .option(
        '--api-key-env <VAR>',
        'read the API key from this environment variable (keys never go on the command line)',
      ),
    options,
    async (
      context,
      flags: { kind: 'openai'; id?: string; label?: string; baseUrl?: string; model?: string; apiKeyEnv?: string },
    ) => {
      let apiKey: string | undefined;
      if (flags.apiKeyEnv !== undefined) {
        apiKey = process.env[flags.apiKeyEnv];
        if (!apiKey)
          throw new CliError(`--api-key-env names ${flags.apiKeyEnv}, but that environment variable is not set.`);
      }
      const provider = await context.session().call('providers.add', {
        kind: flags.kind,
        ...(flags.id ? { id: flags.id } : {}),
        ...(flags.label ? { label: flags.label } : {}),
        ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
        ...(flags.model ? { defaultModel: flags.model } : {}),
        ...(apiKey ? { apiKey } : {}),
      });
      if (context.json) return context.terminal.json(provider);
      context.terminal.line(
        `Added ${provider.id} (${provider.kind}${provider.defaultModel ? `, ${provider.defaultModel}` : ''}).`,
      );
    },
  );

  act(
    leaf(providers, 'set <id>', 'change a provider: its label, base URL, default model or key')
      .option('--label <label>', 'its name in lists')
      .option('--base-url <url>', 'the server')
      .option('--model <model>', 'the default model')
      .option('--api-key-env <VAR>', 'read a new API key from this environment variable')
      .option('--clear-api-key', 'delete its key'),
    options,
    async (
      context,
      id: string,
      flags: { label?: string; baseUrl?: string; model?: string; apiKeyEnv?: string; clearApiKey?: boolean },
    ) => {
      let apiKey: string | null | undefined = flags.clearApiKey ? null : undefined;
      if (flags.apiKeyEnv !== undefined) {
        apiKey = process.env[flags.apiKeyEnv];
        if (!apiKey)
          throw new CliError(`--api-key-env names ${flags.apiKeyEnv}, but that environment variable is not set.`);
      }
      const provider = await context.session().call('providers.update', {
        id,
        ...(flags.label ? { label: flags.label } : {}),
        ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
        ...(flags.model ? { defaultModel: flags.model } : {}),
        ...(apiKey === undefined ? {} : { apiKey }),
      });
      if (context.json) return context.terminal.json(provider);
      context.terminal.line(`Updated ${provider.id}.`);
    },
  );

  act(leaf(providers, 'remove <id>', 'remove a provider and its key'), options, async (context, id: string) => {
    const removed = await context.session().call('providers.remove', { id });
    if (context.json) return context.terminal.json(removed);
    context.terminal.line(`Removed ${removed.id}.`);
  });

  act(leaf(providers, 'test <id>', "fetch the provider's model list"), options, async (context, id: string) => {
    const result = await context.session().call('providers.test', { id });
    if (context.json) context.terminal.json(result);
    else context.terminal.line(result.ok ? `OK: ${result.modelCount} models.` : `Failed: ${result.error.message}`);
    if (!result.ok) throw new CliError(result.error.message);
  });
}
