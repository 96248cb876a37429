import type { Command } from 'commander';
import type {
  ApprovalRuleDraft,
  PolicyExplanation,
  PolicyUpdate,
  PolicyView,
  ServerIdentityMatcher,
} from '../../shared/approval';
import {
  DEFAULT_SAMPLING_TOKEN_BUDGET,
  GLOBAL_APPROVAL_MODES,
  isOneOf,
  MAX_SAMPLING_TOKEN_BUDGET,
  SAMPLING_POLICIES,
  TOOL_APPROVAL_SETTINGS,
} from '../../shared/closed-sets';
import {
  act,
  integer,
  jsonObject,
  leaf,
  resolveChatId,
  type CommandContext,
  type ProgramOptions,
} from '../command-kit';
import { identityLockWords, identityMatcherWords, organisationIdpWords } from '../../shared/identity-lock-words';
import { CliError } from '../exit-codes';
import { table } from '../terminal';

/** `workbench policy …` and `workbench grants …`: the approvals page of the app. */
export function policyCommand(program: Command, options: ProgramOptions): void {
  const policy = program
    .command('policy')
    .description('show and change the approval policy; explain what would happen to a call');

  act(
    leaf(policy, 'show', 'the policy: global mode, timeout, server and tool settings, rules, warnings'),
    options,
    async (context) => {
      const view = await context.session().call('policy.get');
      if (context.json) return context.terminal.json(view);
      printPolicy(context, view);
    },
  );

  const set = leaf(policy, 'set <setting> [values...]', 'change one setting (see the examples below)')
    .addHelpText(
      'after',
      `
Settings:
  mode ask|auto-approve-read-only-trusted|never-ask   the global switch (never-ask turns approvals off)
  timeout SECONDS                                     how long a call waits for you (0 = forever)
  tool SERVER TOOL auto-approve|always-ask|inherit    one tool's setting
  server SERVER auto-approve|ask                      auto-approve all tools of a server, or not
  (a server's trust is an MCP server setting: workbench servers trust|distrust SERVER)
  server SERVER forget                                drop the server's settings
  sampling SERVER ask|allow|deny                      may the server have the chat's model write for it
  sampling-budget SERVER TOKENS                       the most tokens it may have written per chat
  rule add deny|ask|allow SERVER_GLOB TOOL_GLOB [--arg POINTER:glob|regex|equals|one-of:VALUE …] [--note TEXT] [--id ID]
  rule remove ID
  json '{"mode": "ask", …}'                            any change policy.update takes, as JSON

Examples:
  workbench policy set tool Files read_text_file auto-approve
  workbench policy set sampling Everything allow
  workbench policy set rule add deny '*' 'write_*' --arg '/path:glob:/etc/**'`,
    )
    .option('--arg <condition...>', 'a rule condition POINTER:MATCH:VALUE (MATCH is glob, regex or equals)')
    .option('--note <text>', 'a note on the rule')
    .option('--id <id>', "the rule's id (made up when missing)");
  act(
    set,
    options,
    async (context, setting: string, values: string[], flags: { arg?: string[]; note?: string; id?: string }) => {
      const change = policyChange(setting, values, flags);
      const view = await context.session().call('policy.update', change);
      if (context.json) return context.terminal.json(view);
      context.terminal.line('Policy updated.');
      for (const warning of view.warnings)
        context.terminal.line(context.terminal.colors.yellow(`warning: ${warning.message}`));
    },
  );

  act(
    leaf(policy, 'explain <server> <tool> [args_json]', 'what would happen to this call, and why, step by step').option(
      '--chat <id>',
      'in this chat (its mode and grants count)',
    ),
    options,
    async (context, server: string, tool: string, argsJson: string | undefined, flags: { chat?: string }) => {
      const explanation = await explainCall(context, server, tool, argsJson, flags.chat);
      if (context.json) return context.terminal.json(explanation);
      printExplanation(context, server, tool, explanation);
    },
  );

  act(
    leaf(
      policy,
      'test [server] [tool] [args_json]',
      'the rule tester: what would happen to this call and why, and which of your rules never decide',
    ).option('--chat <id>', 'in this chat (its mode and grants count)'),
    options,
    async (
      context,
      server: string | undefined,
      tool: string | undefined,
      argsJson: string | undefined,
      flags: { chat?: string },
    ) => {
      if (server !== undefined && tool === undefined)
        throw new CliError('policy test takes SERVER TOOL [ARGS_JSON], or nothing to check the rules alone.');
      const explanation =
        server !== undefined && tool !== undefined
          ? await explainCall(context, server, tool, argsJson, flags.chat)
          : undefined;
      const { warnings } = await context.session().call('policy.get');
      const findings = warnings.filter((warning) => warning.ruleId !== undefined);
      if (context.json) return context.terminal.json({ ...(explanation ? { explanation } : {}), findings });
      if (explanation && server !== undefined && tool !== undefined)
        printExplanation(context, server, tool, explanation);
      const { colors } = context.terminal;
      if (findings.length === 0) return context.terminal.line(colors.dim('Every rule of yours can decide some call.'));
      context.terminal.line(colors.bold('Rules that never decide:'));
      for (const finding of findings) context.terminal.line(colors.yellow(`  ${finding.message}`));
    },
  );

  const grants = program.command('grants').description('"Allow for this chat" grants: list and revoke');
  act(
    leaf(grants, 'list', "every grant, or one chat's").option('--chat <id>', 'only this chat'),
    options,
    async (context, flags: { chat?: string }) => {
      const chatId = flags.chat === undefined ? undefined : await resolveChatId(context, flags.chat);
      const { grants: list } = await context.session().call('grants.list', chatId ? { chatId } : undefined);
      if (context.json) return context.terminal.json(list);
      if (list.length === 0) return context.terminal.line('No grants.');
      const { colors } = context.terminal;
      context.terminal.line(
        table([
          ['CHAT', 'SERVER', 'TOOL', 'GRANTED'].map((cell) => colors.bold(cell)),
          ...list.map((grant) => [
            grant.chatId,
            grant.serverName,
            grant.toolName,
            new Date(grant.grantedAt).toISOString(),
          ]),
        ]),
      );
    },
  );
  act(
    leaf(grants, 'revoke <chat> <server> <tool>', 'the tool is asked about again in that chat'),
    options,
    async (context, chat: string, server: string, tool: string) => {
      const chatId = await resolveChatId(context, chat);
      const { revoked } = await context.session().call('grants.revoke', { chatId, server, tool });
      if (context.json) return context.terminal.json(revoked);
      context.terminal.line(
        `Revoked: ${revoked.serverName}.${revoked.toolName} is asked about again in chat ${revoked.chatId}.`,
      );
    },
  );
}

/** `policy.explain` for a call typed at the terminal; the servers start first so annotations and grants count. */
async function explainCall(
  context: CommandContext,
  server: string,
  tool: string,
  argsJson: string | undefined,
  chat: string | undefined,
): Promise<PolicyExplanation> {
  const args = argsJson === undefined ? undefined : jsonObject('ARGS_JSON', argsJson);
  const session = context.session();
  await session.startServers();
  const chatId = chat === undefined ? undefined : await resolveChatId(context, chat);
  return session.call('policy.explain', {
    server,
    tool,
    ...(args ? { args } : {}),
    ...(chatId ? { chatId } : {}),
  });
}

function printExplanation(context: CommandContext, server: string, tool: string, explanation: PolicyExplanation): void {
  const { colors } = context.terminal;
  const color =
    explanation.outcome === 'allow' ? colors.green : explanation.outcome === 'deny' ? colors.red : colors.yellow;
  context.terminal.line(`${color(explanation.outcome.toUpperCase())}: ${explanation.reason}`);
  if (explanation.keepsAsking) context.terminal.line(colors.yellow(explanation.keepsAsking));
  if (!explanation.toolKnown)
    context.terminal.line(
      colors.dim(`(no connected server offers ${server}.${tool}; its annotations could not count)`),
    );
  for (const step of explanation.considered) {
    const mark =
      step.result === 'decided' ? colors.bold('→') : step.result === 'ignored' ? colors.dim('×') : colors.dim('·');
    context.terminal.line(`  ${mark} ${step.step}. ${step.kind}: ${step.detail}`);
  }
}

function policyChange(
  setting: string,
  values: string[],
  flags: { arg?: string[]; note?: string; id?: string },
): PolicyUpdate {
  const need = (count: number, usage: string): void => {
    if (values.length !== count)
      throw new CliError(
        `policy set ${setting} takes ${usage}; got ${values.length === 0 ? 'nothing' : values.join(' ')}.`,
      );
  };
  switch (setting) {
    case 'mode': {
      need(1, GLOBAL_APPROVAL_MODES.join('|'));
      const mode = values[0];
      if (!isOneOf(GLOBAL_APPROVAL_MODES, mode))
        throw new CliError(`mode must be one of ${GLOBAL_APPROVAL_MODES.join(', ')}, not ${JSON.stringify(mode)}.`);
      return { mode };
    }
    case 'timeout':
      need(1, 'SECONDS');
      return { timeoutSeconds: integer('timeout', 0, 604_800)(values[0] as string) };
    case 'tool': {
      need(3, 'SERVER TOOL auto-approve|always-ask|inherit');
      const [server, tool, value] = values as [string, string, string];
      if (!isOneOf(TOOL_APPROVAL_SETTINGS, value))
        throw new CliError(
          `a tool setting must be one of ${TOOL_APPROVAL_SETTINGS.join(', ')}, not ${JSON.stringify(value)}.`,
        );
      return { tools: { [server]: { [tool]: value } } };
    }
    case 'server': {
      need(2, 'SERVER auto-approve|ask|forget');
      const [server, value] = values as [string, string];
      if (value === 'trust-annotations' || value === 'distrust-annotations') {
        const verb = value === 'trust-annotations' ? 'trust' : 'distrust';
        throw new CliError(
          `A server's trust is no longer a policy setting: it is the server's own "trusted" setting. Use: workbench servers ${verb} ${server}`,
        );
      }
      const changes: Record<string, PolicyUpdate['servers']> = {
        'auto-approve': { [server]: { autoApprove: true } },
        ask: { [server]: { autoApprove: false } },
        forget: { [server]: null },
      };
      const servers = changes[value];
      if (!servers)
        throw new CliError(
          `a server setting must be one of ${Object.keys(changes).join(', ')}, not ${JSON.stringify(value)}.`,
        );
      return { servers };
    }
    case 'sampling': {
      need(2, `SERVER ${SAMPLING_POLICIES.join('|')}`);
      const [server, value] = values as [string, string];
      if (!isOneOf(SAMPLING_POLICIES, value))
        throw new CliError(`sampling must be one of ${SAMPLING_POLICIES.join(', ')}, not ${JSON.stringify(value)}.`);
      return { servers: { [server]: { sampling: value } } };
    }
    case 'sampling-budget': {
      need(2, 'SERVER TOKENS');
      const [server, tokens] = values as [string, string];
      return {
        servers: {
          [server]: { samplingTokenBudget: integer('sampling-budget', 0, MAX_SAMPLING_TOKEN_BUDGET)(tokens) },
        },
      };
    }
    case 'rule': {
      const [verb, ...rest] = values;
      if (verb === 'remove') {
        if (rest.length === 0)
          throw new CliError(
            'policy set rule remove takes the ids of the rules to remove (see: workbench policy show).',
          );
        return { rules: { remove: rest } };
      }
      if (verb !== 'add' || rest.length !== 3)
        throw new CliError('policy set rule takes: add deny|ask|allow SERVER_GLOB TOOL_GLOB [--arg …], or remove ID…');
      const [effect, server, tool] = rest as [string, string, string];
      if (effect !== 'deny' && effect !== 'ask' && effect !== 'allow')
        throw new CliError(`a rule's effect must be deny, ask or allow, not ${JSON.stringify(effect)}.`);
      const rule: ApprovalRuleDraft = {
        effect,
        server,
        tool,
        ...(flags.id ? { id: flags.id } : {}),
        ...(flags.note ? { note: flags.note } : {}),
        ...(flags.arg ? { args: flags.arg.map(argumentCondition) } : {}),
      };
      return { rules: { add: [rule] } };
    }
    case 'json':
      need(1, 'one JSON object, as policy.update takes it (\'{"mode": "ask"}\')');
      return jsonObject('The policy change', values[0] as string) as PolicyUpdate;
    default:
      throw new CliError(
        `Unknown setting ${JSON.stringify(setting)}: use mode, timeout, tool, server, sampling, sampling-budget, rule or json (see: workbench policy set --help).`,
      );
  }
}

function argumentCondition(text: string): NonNullable<ApprovalRuleDraft['args']>[number] {
  const match = /^([^:]*):(glob|regex|equals|one-of):(.*)$/s.exec(text);
  if (!match)
    throw new CliError(
      `--arg takes POINTER:glob|regex|equals|one-of:VALUE (like /path:glob:/etc/**), not ${JSON.stringify(text)}.`,
    );
  const [, pointer, kind, value] = match as unknown as [string, string, 'glob' | 'regex' | 'equals' | 'one-of', string];
  if (kind !== 'equals') return { pointer, match: kind, value };
  let parsed: unknown = value;
  try {
    parsed = JSON.parse(value);
  } catch {
    // A bare word compares as text.
  }
  if (parsed !== null && typeof parsed === 'object')
    throw new CliError(`--arg equals compares a string, number, boolean or null, not ${value}.`);
  return { pointer, match: 'equals', value: parsed as string | number | boolean | null };
}

function printPolicy(context: CommandContext, view: PolicyView): void {
  const { terminal } = context;
  const { colors } = terminal;
  const { policy } = view;
  const locked = view.managed?.locked ?? {};
  const defaulted = new Set(view.managed?.defaulted ?? []);
  /** "(locked: set by your organisation)" or "(your organisation's default)" after a setting (docs/user/organisation-policy.md). */
  const origin = (key: 'mode' | 'timeoutSeconds', isLocked: boolean): string =>
    isLocked
      ? colors.dim(' (locked: set by your organisation)')
      : defaulted.has(key)
        ? colors.dim(" (your organisation's default)")
        : '';
  terminal.line(`${colors.bold('Mode:')} ${policy.mode}${origin('mode', locked.mode !== undefined)}`);
  terminal.line(
    `${colors.bold('Timeout:')} ${policy.timeoutSeconds === 0 ? 'none (calls wait forever)' : `${policy.timeoutSeconds} s`}${origin('timeoutSeconds', locked.timeoutSeconds !== undefined)}`,
  );
  for (const warning of view.warnings) terminal.line(colors.yellow(`warning: ${warning.message}`));
  const servers = Object.entries(policy.servers);
  if (servers.length > 0) {
    terminal.line(colors.bold('\nServers:'));
    for (const [name, settings] of servers) {
      const sampling =
        settings.sampling === undefined && settings.samplingTokenBudget === undefined
          ? ''
          : `; sampling: ${settings.sampling ?? 'ask'}, ${(settings.samplingTokenBudget ?? DEFAULT_SAMPLING_TOKEN_BUDGET).toLocaleString('en')} tokens per chat`;
      terminal.line(`  ${name}: ${settings.autoApprove ? 'auto-approve' : 'ask'}${sampling}`);
    }
  }
  const toolLocked = (server: string, tool: string): boolean =>
    Object.entries(locked.tools ?? {}).some(([name, byTool]) => name === server && Object.hasOwn(byTool, tool));
  const tools = Object.entries(policy.tools).flatMap(([server, byTool]) =>
    Object.entries(byTool).map(
      ([tool, setting]) =>
        `  ${server}.${tool}: ${setting}${toolLocked(server, tool) ? colors.dim(' (locked: set by your organisation)') : ''}`,
    ),
  );
  if (tools.length > 0) terminal.line(`${colors.bold('\nTools:')}\n${tools.join('\n')}`);
  if (view.managed) {
    terminal.line(colors.bold(`\nYour organisation's policy (${view.managed.file}):`));
    if (view.managed.disallowNeverAsk) terminal.line('  "never ask" is not allowed');
    for (const rule of view.managed.rules) terminal.line(`  ${ruleWords(rule)}`);
    for (const rule of locked.rules ?? []) terminal.line(`  ${ruleWords(rule)} (locked)`);
    for (const lock of locked.serversByIdentity ?? []) terminal.line(`  ${identityLockWords(lock)} (locked)`);
    for (const sink of locked.auditShipping?.sinks ?? [])
      terminal.line(`  audit shipping to '${sink.id}' (${sink.type}, locked: always on)`);
    // Cross-app access (docs/user/organisation-policy.md#oauth): never the client's secret, only that one is given.
    for (const entry of view.managed.crossAppAccess ?? []) {
      const { servers, signIn } = organisationIdpWords(entry);
      terminal.line(`  ${servers} ${signIn} (${entry.locked ? 'locked' : "your organisation's default"})`);
    }
  }
  terminal.line(colors.bold('\nRules:'));
  if (policy.rules.length === 0) terminal.line('  none');
  policy.rules.forEach((rule, index) => terminal.line(`  #${index + 1} ${ruleWords(rule)}`));
}

function ruleWords(rule: {
  id: string;
  effect: string;
  server: string;
  tool: string;
  args?: { pointer: string; match: string; value: unknown }[] | undefined;
  note?: string | undefined;
  serverIdentity?: ServerIdentityMatcher | undefined;
}): string {
  const conditions = (rule.args ?? [])
    .map(
      (arg) =>
        ` when ${arg.pointer || '(the arguments)'} ${arg.match === 'equals' ? '=' : arg.match === 'regex' ? '~' : arg.match === 'one-of' ? 'is one of' : 'matches'} ${arg.match === 'one-of' ? String(arg.value) : JSON.stringify(arg.value)}`,
    )
    .join(' and');
  const running = rule.serverIdentity ? ` on servers running ${identityMatcherWords(rule.serverIdentity)}` : '';
  return `[${rule.id}] ${rule.effect} ${rule.server} ${rule.tool}${running}${conditions}${rule.note ? `  (${rule.note})` : ''}`;
}
