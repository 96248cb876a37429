import { identityChangeLines } from './identity-prompt';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  ApprovalResolution,
  PolicyExplanation,
  RememberAction,
  RememberOptions,
  ToolCallApproval,
  ToolCallRequest,
} from '../shared/approval';
import { writeRequestFrame } from './request-frame';
import { APPROVAL_WARNING, REMEMBER_WORDS } from '../shared/decisions';
import { createArgumentsValidator, describeArgumentProblems } from '../main/approval/arguments-validator';
import type { CallWait } from './exchange';
import { ABANDONED, INTERRUPTED, type Answer, type LineReader } from './line-reader';
import type { Colors } from './terminal';

/** Seed 000's prompt, in a terminal. */
export const APPROVAL_CHOICES =
  '[s] allow for this chat  [o] allow once  [d] deny  [r] deny with a reason  [e] edit arguments  [?] why is this asked';
/** Remember from the prompt (docs/user/cli.md#chat), on a line of its own below seed 000's choices. */
export const REMEMBER_CHOICES = `[a] ${REMEMBER_WORDS.tool.toLowerCase()}  [l] ${REMEMBER_WORDS.rule.toLowerCase()}`;

export type PromptOutcome =
  { kind: 'answers'; approvals: ToolCallApproval[] } | { kind: 'interrupted' } | { kind: 'closed' };

export interface ApprovalPromptDependencies {
  reader: LineReader;
  write(text: string): void;
  colors: Colors;
  /** `policy.explain` for this call in this chat: the `?` answer. */
  explain(request: ToolCallRequest): Promise<PolicyExplanation | undefined>;
  /** `approvals.rememberOptions` for this call with these arguments: the `a` and `l` answers. */
  rememberOptions?(request: ToolCallRequest, args: Record<string, unknown>): Promise<RememberOptions>;
  /**
   * Each call's time limit and the signal that it stopped waiting (docs/user/cli.md#time-limits): the prompt shows
   * the one and obeys the other.
   */
  waits?: ReadonlyMap<string, CallWait>;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

const LONG_VALUE = 160;

/** The arguments pretty-printed, each long string folded to its start and how much more there is. */
export function foldedArguments(args: Record<string, unknown>): string {
  const fold = (value: unknown): unknown => {
    if (typeof value === 'string' && value.length > LONG_VALUE)
      return `${value.slice(0, LONG_VALUE)}… (${value.length - LONG_VALUE} more characters)`;
    if (Array.isArray(value))
      return value.length > 20
        ? [...value.slice(0, 20).map(fold), `… ${value.length - 20} more items`]
        : value.map(fold);
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fold(inner)]));
    return value;
  };
  return JSON.stringify(fold(args), null, 2);
}

/**
 * Asks about each pending call, one at a time (seed 000 "CLI support"); answers once every call is decided.
 * There is no default: Enter asks again. `e` edits the arguments in $VISUAL/$EDITOR, or inline as one line of
 * JSON, checked against the tool's input schema before it is accepted.
 */
export async function askAboutCalls(
  requests: readonly ToolCallRequest[],
  dependencies: ApprovalPromptDependencies,
): Promise<PromptOutcome> {
  const { write, colors } = dependencies;
  const validator = createArgumentsValidator();
  const approvals: ToolCallApproval[] = [];
  const now = dependencies.now ?? Date.now;
  calls: for (const [index, request] of requests.entries()) {
    const server = request.serverName;
    const wait = dependencies.waits?.get(request.toolCallId);
    const gone = wait?.gone;
    // While this call is asked about, every question about it gives way the moment it stops waiting (docs/user/cli.md#time-limits).
    const askUnlessGone = async (prompt: string): Promise<Answer> => {
      const answer = await dependencies.reader.askUnless(prompt, gone as AbortSignal);
      return answer === ABANDONED ? '' : answer;
    };
    const reader: LineReader = gone ? { ...dependencies.reader, ask: askUnlessGone } : dependencies.reader;
    const asking = { ...dependencies, reader };
    const moveOn = (): void =>
      void write(`${goneNotice(request, gone?.reason, index < requests.length - 1, colors)}\n`);
    const timeLeft = (): string =>
      wait?.expiresAt == null
        ? ''
        : colors.dim(`  Waits ${remaining(wait.expiresAt - now())} more for your answer; then it is not run.`);
    let args = request.args;
    let edited = false;
    // Every time the choices are shown again (after `?`, a cancelled edit…), they are all shown: `a` and `l` too.
    const choices = (): void => {
      write(`${APPROVAL_CHOICES}\n`);
      if (dependencies.rememberOptions) write(`${colors.dim(REMEMBER_CHOICES)}\n`);
    };
    const card = (): void =>
      writeRequestFrame(write, colors, {
        title: `Allow tool call from ${server}?`,
        tag: requests.length > 1 ? `(${index + 1} of ${requests.length})` : undefined,
        body: [
          `  Run ${colors.bold(request.toolName)} from ${server}${edited ? colors.yellow('  (arguments edited)') : ''}`,
          indent(foldedArguments(args), '  '),
          ...(request.decision.definitionChanged
            ? [colors.yellow('  This tool changed since you allowed it for this chat.')]
            : []),
          // A changed launch spec is another server (docs/user/approvals.md, "A server's identity"): what it ran and runs.
          ...(request.decision.identityChanged
            ? identityChangeLines(request.serverName, request.decision.identityChanged).map((line) =>
                colors.yellow(line),
              )
            : []),
          // An explicit ask stands above a chat grant (docs/dev/architecture.md, the decision order): say so before `s` is chosen.
          ...(request.decision.keepsAsking ? [colors.yellow(`  ${request.decision.keepsAsking}`)] : []),
        ],
        warning: APPROVAL_WARNING,
        review: 'Review each action carefully before approving.',
        choices: dependencies.rememberOptions ? [APPROVAL_CHOICES, REMEMBER_CHOICES] : [APPROVAL_CHOICES],
        footer: timeLeft() || undefined,
      });
    if (gone?.aborted) {
      moveOn();
      continue;
    }
    card();
    for (;;) {
      const answer = gone ? await dependencies.reader.askUnless('> ', gone) : await reader.ask('> ');
      if (answer === ABANDONED) {
        moveOn();
        continue calls;
      }
      if (answer === INTERRUPTED) return { kind: 'interrupted' };
      if (answer === null) return { kind: 'closed' };
      const key = answer.trim().toLowerCase();
      const editedArgs = edited ? { editedArgs: args } : {};
      if (key === 's') {
        approvals.push({ toolCallId: request.toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_SESSION', ...editedArgs });
        write(
          colors.green(
            `→ Allowed for this chat${request.decision.keepsAsking ? ' (recorded, but this tool keeps asking while that setting stands)' : ''}\n`,
          ),
        );
        break;
      }
      if (key === 'o') {
        approvals.push({ toolCallId: request.toolCallId, decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', ...editedArgs });
        write(colors.green('→ Allowed once\n'));
        break;
      }
      if (key === 'd') {
        approvals.push({ toolCallId: request.toolCallId, decision: 'TOOL_CALL_DECISION_DENY' });
        write(colors.red('→ Denied\n'));
        break;
      }
      if (key === 'r') {
        const reason = await askReason(reader);
        if (gone?.aborted) {
          moveOn();
          continue calls;
        }
        if (reason === INTERRUPTED) return { kind: 'interrupted' };
        if (reason === null) return { kind: 'closed' };
        if (reason === '') {
          choices();
          continue;
        }
        approvals.push({ toolCallId: request.toolCallId, decision: 'TOOL_CALL_DECISION_DENY', reason });
        write(colors.red(`→ Denied: "${reason}"\n`));
        break;
      }
      if (key === 'e') {
        const result = await editArguments(request, args, asking, validator);
        if (gone?.aborted) {
          moveOn();
          continue calls;
        }
        if (result === INTERRUPTED) return { kind: 'interrupted' };
        if (result === null) return { kind: 'closed' };
        if (result !== undefined) {
          args = result;
          edited = true;
          write(colors.green('Arguments accepted. Now allow (s, o) or deny (d, r) the call with them.\n'));
          card();
        } else choices();
        continue;
      }
      if ((key === 'a' || key === 'l') && dependencies.rememberOptions) {
        const remember = await confirmRemember(key === 'a' ? 'tool' : 'rule', request, args, asking);
        if (gone?.aborted) {
          moveOn();
          continue calls;
        }
        if (remember === INTERRUPTED) return { kind: 'interrupted' };
        if (remember === null) return { kind: 'closed' };
        if (remember === undefined) {
          choices();
          continue;
        }
        approvals.push({
          toolCallId: request.toolCallId,
          decision: 'TOOL_CALL_DECISION_ALLOW_ONCE',
          ...editedArgs,
          remember,
        });
        write(colors.green(`→ Allowed once, and remembered: ${REMEMBER_WORDS[remember.kind]}\n`));
        break;
      }
      if (key === '?') {
        await explainWhy(request, asking);
        if (gone?.aborted) {
          moveOn();
          continue calls;
        }
        choices();
        continue;
      }
      if (key !== '') write(colors.yellow(`"${answer.trim()}" is not an answer. `));
      write(`Type s, o, d, r, e${dependencies.rememberOptions ? ', a, l' : ''} or ? and press Enter.\n`);
      if (timeLeft()) write(`${timeLeft()}\n`);
    }
  }
  return { kind: 'answers', approvals };
}

/** "4 min 59 s", "12 s", "2 h 5 min": how long is left, rounded down to what a person reads. */
export function remaining(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  return minutes % 60 === 0 ? `${Math.floor(minutes / 60)} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** What the prompt says when a call stopped waiting while it was asked about: why, that it did not run, what is next. */
export function goneNotice(request: ToolCallRequest, resolution: unknown, more: boolean, colors: Colors): string {
  const ended = resolution as Partial<ApprovalResolution> | undefined;
  const tool = `${request.serverName} ${request.toolName}`;
  const next = more ? ' On to the next call.' : '';
  switch (ended?.outcome) {
    case 'allow_once':
    case 'allow_session':
      return colors.yellow(`→ ${tool} was allowed elsewhere meanwhile; nothing to answer here.${next}`);
    case 'deny':
      return colors.yellow(
        `→ ${tool} was denied meanwhile (${ended.reason ?? 'by a person elsewhere'}); it was not run.${next}`,
      );
    case 'cancelled':
      return colors.yellow(`→ ${tool} was cancelled meanwhile; it was not run.${next}`);
    default:
      return colors.yellow(
        `→ Timed out: no one answered in time (the approval timeout), so ${tool} was not run.${next}`,
      );
  }
}

async function askReason(reader: LineReader): Promise<string | null | typeof INTERRUPTED> {
  const reason = await reader.ask('Reason (told to the model; empty goes back): ');
  return typeof reason === 'string' ? reason.trim().slice(0, 2_000) : reason;
}

/** New arguments that fit the schema; `undefined` when the person gave up (the call stays as it was). */
async function editArguments(
  request: ToolCallRequest,
  current: Record<string, unknown>,
  { reader, write, colors, env = process.env }: ApprovalPromptDependencies,
  validator: ReturnType<typeof createArgumentsValidator>,
): Promise<Record<string, unknown> | undefined | null | typeof INTERRUPTED> {
  const editor = env.VISUAL?.trim() || env.EDITOR?.trim();
  for (;;) {
    let text: string | null | typeof INTERRUPTED;
    if (editor) {
      const written = reader.suspend(() => editInEditor(editor, current, write));
      if (written === undefined) return undefined;
      text = written;
    } else {
      write(colors.dim('Type the arguments as one line of JSON (empty keeps them as they are):\n'));
      text = await reader.ask('json> ');
      if (text === INTERRUPTED || text === null) return text;
      if (text.trim() === '') return undefined;
    }
    const problem = checkArguments(text, request, validator);
    if (typeof problem !== 'string') return problem;
    write(colors.red(`${problem}\n`));
    if (editor) {
      const again = await reader.ask('Edit again? [y/n] ');
      if (again === INTERRUPTED || again === null) return again;
      if (!/^y/i.test(again.trim())) return undefined;
    }
  }
}

/** The parsed arguments, or what is wrong with them in words. */
export function checkArguments(
  text: string,
  request: ToolCallRequest,
  validator = createArgumentsValidator(),
): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `That is not valid JSON: ${(error as Error).message}. The arguments were not changed.`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return 'The arguments must be a JSON object ({ … }). The arguments were not changed.';
  const result = validator.check(request.definitionHash, request.inputSchema, value as Record<string, unknown>);
  if (result.ok) return value as Record<string, unknown>;
  if ('schemaError' in result)
    return `The tool's input schema is invalid (${result.schemaError}), so edits cannot be checked: allow the call as it is or deny it.`;
  return `The arguments do not fit the input schema of ${request.serverName}.${request.toolName}: ${describeArgumentProblems(result.problems)}. The arguments were not changed.`;
}

function editInEditor(
  editor: string,
  current: Record<string, unknown>,
  write: (text: string) => void,
): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workbench-args-'));
  const file = path.join(dir, 'arguments.json');
  try {
    fs.writeFileSync(file, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
    // The editor may carry arguments of its own ("code --wait"); run it through the shell as git does.
    const result =
      process.platform === 'win32'
        ? spawnSync(`${editor} "${file}"`, { stdio: 'inherit', shell: true })
        : spawnSync('/bin/sh', ['-c', `${editor} "$@"`, 'editor', file], { stdio: 'inherit' });
    if (result.error || result.status !== 0) {
      write(
        `The editor (${editor}) ended with ${result.error ? result.error.message : `exit code ${result.status}`}; the arguments were not changed.\n`,
      );
      return undefined;
    }
    return fs.readFileSync(file, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function explainWhy(
  request: ToolCallRequest,
  { write, colors, explain }: ApprovalPromptDependencies,
): Promise<void> {
  write(`${colors.bold('Why this is asked:')} ${request.decision.reason}\n`);
  const hints = request.annotations ?? {};
  const flags = [
    hints.readOnlyHint ? 'says it only reads' : '',
    hints.destructiveHint ? 'says it may destroy data' : '',
    hints.openWorldHint ? 'reaches outside this machine' : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (request.description) write(`  ${colors.dim(request.toolName)}: ${request.description.split('\n')[0]}\n`);
  if (flags) write(`  The server ${flags} (a hint from the server, not a guarantee).\n`);
  const explanation = await explain(request).catch(() => undefined);
  for (const step of explanation?.considered ?? []) write(colors.dim(`  ${step.step}. ${step.kind}: ${step.detail}\n`));
  write(colors.dim(`  ${stopAskingHint(request)}\n`));
}

/** What would stop the questions: after an explicit ask only changing that setting does, not `s`. */
export function stopAskingHint(request: ToolCallRequest): string {
  const { serverName, toolName, decision } = request;
  const tool = `${serverName} ${toolName}`;
  switch (decision.keepsAsking === undefined ? undefined : decision.source.kind) {
    case 'ask-rule':
      return `To stop being asked: change or remove the ask rule (workbench policy set rule remove ${decision.source.ruleId ?? 'ID'}); allowing it for this chat (s) does not.`;
    case 'tool-setting':
      return `To stop being asked: workbench policy set tool ${tool} inherit (or auto-approve); allowing it for this chat (s) does not.`;
    case 'chat-mode':
      return 'To stop being asked: set this chat back to its tool settings (workbench chats mode ID use-tool-settings); allowing it for this chat (s) does not.';
    default:
      return `To stop being asked: allow it for this chat (s), or set a rule: workbench policy set tool ${tool} auto-approve`;
  }
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/**
 * The same confirmation as the card's (docs/user/approvals.md "Remember from the card"): what changes and where to undo
 * it, or why it is not offered. The action, or undefined when the person went back (or it is not offered).
 */
async function confirmRemember(
  kind: 'tool' | 'rule',
  request: ToolCallRequest,
  args: Record<string, unknown>,
  { reader, write, colors, rememberOptions }: ApprovalPromptDependencies,
): Promise<RememberAction | undefined | null | typeof INTERRUPTED> {
  let options: RememberOptions;
  try {
    options = await (rememberOptions as NonNullable<typeof rememberOptions>)(request, args);
  } catch (error) {
    write(colors.red(`Cannot remember: ${(error as { message?: string }).message ?? String(error)}\n`));
    return undefined;
  }
  const offer = options[kind];
  if (!offer.offered) {
    write(colors.yellow(`${REMEMBER_WORDS[kind]} is not offered: ${offer.refusal ?? ''}\n`));
    return undefined;
  }
  write(
    `${colors.bold(`${REMEMBER_WORDS[kind]}?`)} This call is allowed once now, and:\n  ${offer.change}\n  ${colors.dim(`Where to undo: ${offer.undo}`)}\n`,
  );
  for (;;) {
    const answer = await reader.ask('Allow and remember? [y/n] ');
    if (answer === INTERRUPTED || answer === null) return answer;
    const key = answer.trim().toLowerCase();
    if (key === 'n' || key === '') return undefined;
    if (key === 'y') {
      return kind === 'tool'
        ? { kind }
        : {
            kind,
            id: `remembered-${request.toolName.replace(/[^A-Za-z0-9._-]/g, '').slice(0, 40) || 'tool'}-${Date.now().toString(36)}`,
            args: options.rule.args,
          };
    }
  }
}
