import { escapeGlob } from './glob-literal';
import path from 'node:path';
import {
  RULE_LIMITS,
  type ApprovalPolicy,
  type ApprovalRule,
  type ArgumentMatcher,
  type ManagedPolicy,
  type PolicyUpdate,
  type RememberAction,
  type RememberKind,
  type RememberOffer,
} from '../../../shared/approval';
import { compileGlob, compileMatcher, listedValues, matcherHolds } from './argument-matcher';
import { compilePolicy } from './compiled-policy';
import { decide, denyCheck } from './decision-pipeline';
import { ruleName } from './decision-reasons';
import { applyUpdate } from './policy-change';
import { compileRule, describeRule, ruleProblems, type CompiledRule } from './rule-compiler';
import { autoApproveServerLabel } from '../../../shared/trust-words';

/**
 * Remember from the card (docs/user/approvals.md "Remember from the card"): pure. Which of the three
 * actions a waiting call may offer, the rule suggested from its arguments, and the check that runs again, in main,
 * when the approval message that carries the action arrives. An action is offered only where it can work:
 * - never for a call a deny rule catches (deny beats everything; offering it would promise what cannot happen);
 * - never when the organisation locked the setting (`lockOf`, the seam for the organisation's locked settings);
 * - only when, with the change made, the pipeline would allow this very call (an ask rule or a tool set to
 *   "always ask" would keep asking: the offer says which);
 * - a rule only when it matches this call and could not also allow calls an ask rule means to catch.
 */

/** The call as the card shows it: the model's arguments, or the person's edit of them. */
export interface RememberCall {
  readonly serverName: string;
  readonly toolName: string;
  readonly args: Record<string, unknown>;
}

export interface RememberContext {
  readonly policy: ApprovalPolicy;
  readonly managed: ManagedPolicy | null;
  readonly trustedServers: Iterable<string>;
}

export type RememberVerdict =
  | { readonly ok: true; readonly update: PolicyUpdate; readonly words: string }
  | { readonly ok: false; readonly refusal: string };

/** Argument names that hold a path, whatever their value looks like. */
const PATH_NAMES =
  /^(path|paths|file|filename|file_path|filepath|dir|directory|folder|source|destination|target|cwd)$/i;
const GLOB_SYNTAX = /[*?[\]{}()!+@\\]/;
const SETTINGS_PLACE = 'Settings › Approvals';

/**
 * The organisation's lock on a remember action, in words, or undefined. Until the managed policy can name locked
 * settings, it reads what the organisation already says: `disallowNeverAsk` means approvals are required, so
 * setting a whole server to run without asking (seed 003's bypass, approvals off for one server) is locked.
 * When the managed policy gains locked settings, this is the one place that reads them.
 */
export function lockOf(kind: RememberKind, managed: ManagedPolicy | null): string | undefined {
  if (kind === 'server' && managed?.disallowNeverAsk) {
    return "Your organisation's policy requires approvals, so a whole server cannot be set to run without asking.";
  }
  return undefined;
}

/** Argument names that name a folder: the folder itself is globbed, not its parent. */
const FOLDER_NAMES = /^(cwd|dir|directory|folder)$/i;

/**
 * The rule suggested for calls like this one (docs/user/approvals.md "Remember from the card"): no broader than the
 * card. A path argument → the folder the call named as a glob (`notes/a.md` → `notes/**`, `cwd: /home/me/project` →
 * `/home/me/project/**`); a URL → its scheme and host; every other argument exactly, by equality (a nested object's or
 * list's every value, by its own pointer). Empty when the call has no argument, or when keeping every argument would
 * take more conditions than a rule may hold: a shorter rule would allow more than the card showed.
 */
export function suggestRule(args: Record<string, unknown>): ArgumentMatcher[] {
  const conditions: ArgumentMatcher[] = [];
  for (const [name, value] of Object.entries(args)) {
    const pointer = `/${escapePointer(name)}`;
    if (typeof value === 'string') {
      const url = urlMatcher(value);
      if (url) {
        conditions.push({ pointer, match: 'regex', value: url });
        continue;
      }
      if (PATH_NAMES.test(name) || value.startsWith('/') || value.startsWith('./') || value.startsWith('~/')) {
        const folder = folderGlob(value, FOLDER_NAMES.test(name));
        conditions.push(
          folder === null ? { pointer, match: 'equals', value } : { pointer, match: 'glob', value: folder },
        );
        continue;
      }
    }
    if (!exactConditions(pointer, value, conditions)) return [];
  }
  return conditions.length > RULE_LIMITS.matchersPerRule ? [] : conditions;
}

/**
 * The arguments that locate a call — its paths and URLs, or, when it has none, its scalar arguments — by pointer.
 * Approval insights build their conditions over these from every call seen (insights/suggestions.ts).
 */
export function locatingPointers(args: Record<string, unknown>): string[] {
  const located = Object.entries(args)
    .filter(
      ([name, value]) =>
        typeof value === 'string' &&
        (urlMatcher(value) !== null ||
          PATH_NAMES.test(name) ||
          value.startsWith('/') ||
          value.startsWith('./') ||
          value.startsWith('~/')),
    )
    .map(([name]) => `/${escapePointer(name)}`);
  if (located.length > 0) return located;
  return Object.entries(args)
    .filter(([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value))
    .slice(0, 16)
    .map(([name]) => `/${escapePointer(name)}`);
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Equality on the value, or on every value inside it; false when it cannot be kept exactly. */
function exactConditions(pointer: string, value: unknown, into: ArgumentMatcher[]): boolean {
  if (into.length > RULE_LIMITS.matchersPerRule) return false;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    into.push({ pointer, match: 'equals', value });
    return true;
  }
  if (typeof value === 'string') {
    if (value.length > RULE_LIMITS.valueLength) return false;
    into.push({ pointer, match: 'equals', value });
    return true;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return false;
    return value.every((item, index) => exactConditions(`${pointer}/${index}`, item, into));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return false;
    return entries.every(([key, item]) => exactConditions(`${pointer}/${escapePointer(key)}`, item, into));
  }
  return false;
}

/** `^https://example\.com(?:[/?#]|$)`: the host exactly (no user-info trick like `example.com@evil.test`). */
function urlMatcher(value: string): string | null {
  if (!/^https?:\/\//i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password || url.host === '') return null;
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  return `^${escape(url.protocol)}//${escape(url.host)}(?:[/?#]|$)`;
}

/**
 * `notes/a.md` → `notes/**`, or the value itself when it names a folder (`/home/me/project` → `/home/me/project/**`);
 * null when the folder cannot be a plain glob (no folder, `..`, glob characters).
 */
function folderGlob(value: string, namesFolder: boolean): string | null {
  const normalised = path.posix.normalize(value).replace(/(.)\/+$/, '$1');
  if (normalised.startsWith('..') || normalised.includes('/../')) return null;
  const folder = namesFolder ? normalised : path.posix.dirname(normalised);
  if (folder === '.' || folder === '/' || GLOB_SYNTAX.test(folder)) return null;
  return `${folder}/**`;
}

/** The rule a `rule` action adds: the call's own server and tool (literal names, glob characters escaped), the person's conditions. */
export function rememberedRule(call: RememberCall, id: string, args: readonly ArgumentMatcher[]): ApprovalRule {
  return {
    id,
    effect: 'allow',
    server: escapeGlob(call.serverName),
    tool: escapeGlob(call.toolName),
    args: [...args],
    note: 'remembered from an approval card',
  };
}

/** The policy change an action makes. */
export function rememberUpdate(call: RememberCall, action: RememberAction): PolicyUpdate {
  switch (action.kind) {
    case 'tool':
      return { tools: { [call.serverName]: { [call.toolName]: 'auto-approve' } } };
    case 'server':
      return { servers: { [call.serverName]: { autoApprove: true } } };
    case 'rule': {
      const { id: _id, ...draft } = rememberedRule(call, action.id, action.args);
      return { rules: { add: [{ id: action.id, ...draft }] } };
    }
  }
}

/** What the action changes and where to undo it, in the words of the confirmation, the CLI and the audit row. */
export function rememberWords(
  call: RememberCall,
  action: Pick<RememberAction, 'kind'> & { args?: readonly ArgumentMatcher[] },
): { change: string; undo: string } {
  const name = `${call.serverName}.${call.toolName}`;
  switch (action.kind) {
    case 'tool':
      return {
        change: `The tool setting of ${name} becomes 'Auto-approve': every later call of ${call.toolName} from ${call.serverName} runs without asking, in every chat, unless a deny or ask rule catches it.`,
        undo: `${SETTINGS_PLACE} › Servers and tools: set ${name} back to 'Use server setting' (or Undo there).`,
      };
    case 'server':
      return {
        change: `The server '${call.serverName}' is set to auto-approve: every tool it offers, now and later, runs without asking, in every chat, unless a deny or ask rule or a tool's own setting catches it.`,
        undo: `${SETTINGS_PLACE} › Servers and tools: turn off '${autoApproveServerLabel(call.serverName)}' (or Undo there).`,
      };
    case 'rule':
      return {
        change: `A new allow rule at the end of your list: ${describeRule({ id: 'x', effect: 'allow', server: escapeGlob(call.serverName), tool: escapeGlob(call.toolName), args: [...(action.args ?? [])] })}. Calls it matches run without asking, in every chat, unless a deny or ask rule catches them.`,
        undo: `${SETTINGS_PLACE} › Rules: remove the rule (or Undo there).`,
      };
  }
}

/**
 * Whether the action may be remembered for this call, and the policy change when it may. The same function answers
 * the card's "More…" menu and checks the approval message in main, so what was offered is what is enforced.
 */
export function checkRemember(call: RememberCall, action: RememberAction, context: RememberContext): RememberVerdict {
  const before = compilePolicy(context.policy, context.managed, context.trustedServers);
  const denied = denyCheck(call, before);
  if (denied)
    return { ok: false, refusal: `A deny rule catches this call, so nothing can allow it: ${denied.reason}.` };
  const locked = lockOf(action.kind, context.managed);
  if (locked) return { ok: false, refusal: locked };
  const update = rememberUpdate(call, action);
  if (action.kind === 'rule') {
    const refusal = ruleRefusal(call, action, context.policy, before.candidates(call.serverName, call.toolName).ask);
    if (refusal) return { ok: false, refusal };
  }
  let after;
  try {
    after = compilePolicy(applyUpdate(context.policy, update), context.managed, context.trustedServers);
  } catch (error) {
    return { ok: false, refusal: `It cannot be saved: ${(error as Error).message}` };
  }
  const decision = decide({ call }, after);
  if (decision.outcome !== 'allow')
    return { ok: false, refusal: `It would not stop the question for this call: ${decision.reason}.` };
  return { ok: true, update, words: rememberWords(call, action).change };
}

/** The three offers for a call, with the suggested (or the person's edited) rule. */
export function rememberOffers(
  call: RememberCall,
  context: RememberContext,
  ruleArgs: readonly ArgumentMatcher[] = suggestRule(call.args),
): { tool: RememberOffer; server: RememberOffer; rule: RememberOffer & { args: ArgumentMatcher[] } } {
  const offer = (action: RememberAction): RememberOffer => {
    const verdict = checkRemember(call, action, context);
    const words = rememberWords(call, action);
    return verdict.ok
      ? { kind: action.kind, offered: true, ...words }
      : { kind: action.kind, offered: false, refusal: verdict.refusal, ...words };
  };
  return {
    tool: offer({ kind: 'tool' }),
    server: offer({ kind: 'server' }),
    rule: { ...offer({ kind: 'rule', id: 'remembered-check', args: [...ruleArgs] }), args: [...ruleArgs] },
  };
}

function ruleRefusal(
  call: RememberCall,
  action: Extract<RememberAction, { kind: 'rule' }>,
  policy: ApprovalPolicy,
  askRules: readonly CompiledRule[],
): string | undefined {
  if (action.args.length === 0) {
    return "It has no condition on the arguments (the call has none, or too many values to keep them all), so it would allow more than this call: use 'Always allow this tool' for every call of it.";
  }
  const rule = rememberedRule(call, action.id, action.args);
  const problems = ruleProblems(rule);
  if (problems.length > 0)
    return `The rule is not valid: ${problems.map((problem) => `${problem.field} ${problem.problem}`).join('; ')}.`;
  if (policy.rules.some((existing) => existing.id === action.id))
    return `A rule with the id '${action.id}' exists already.`;
  const compiled = compileRule(rule, { managed: false });
  if (!compiled.matchesArgs(call.args))
    return 'The rule does not match this call, so it would not allow it: widen its conditions.';
  const overlapping = askRules.find((ask) => mayOverlap(action.args, ask));
  if (overlapping) {
    return `It could also allow calls that ${ruleName(overlapping)} means to ask about (${overlapping.description}): narrow the rule so it cannot match them, or change that ask rule first.`;
  }
  return undefined;
}

/**
 * Whether some call of this tool could match both the allow conditions and the ask rule (whose server and tool
 * already match the call's). Conservative: when it cannot be shown that no value satisfies both, they overlap.
 * For each condition of the ask rule, an allow condition on the same pointer must exclude it; an ask condition on a
 * pointer the allow rule leaves free can always be met.
 */
export function mayOverlap(allow: readonly ArgumentMatcher[], ask: CompiledRule): boolean {
  // Conditions that list every call they allow (`one-of` over the whole arguments): test each one.
  const listed = allow.find((condition) => condition.match === 'one-of' && condition.pointer === '');
  if (listed) {
    const conditions = allow.map((condition) => compileMatcher(condition, true));
    return (listedValues(listed.value) ?? []).some(
      (args) =>
        args !== null &&
        typeof args === 'object' &&
        !Array.isArray(args) &&
        conditions.every((condition) => matcherHolds(condition, args as Record<string, unknown>)) &&
        ask.matchesArgs(args as Record<string, unknown>),
    );
  }
  const askConditions = ask.rule.args ?? [];
  for (const askCondition of askConditions) {
    const allowConditions = allow.filter((condition) => condition.pointer === askCondition.pointer);
    if (allowConditions.some((condition) => excludes(condition, askCondition))) return false;
  }
  return true;
}

/** True when no value can satisfy both conditions (on the same pointer). */
function excludes(allow: ArgumentMatcher, ask: ArgumentMatcher): boolean {
  const holds = (matcher: ArgumentMatcher, value: ArgumentMatcher['value']): boolean =>
    matcherHolds(compileMatcher({ ...matcher, pointer: '/v' }, false), { v: value });
  if (allow.match === 'equals') return !holds(ask, allow.value);
  if (ask.match === 'equals') return !holds({ ...allow }, ask.value);
  if (allow.match === 'glob' && ask.match === 'glob') {
    // Two globs can only share a value when one's literal start is a prefix of the other's.
    const a = compileGlob(String(allow.value)).prefix;
    const b = compileGlob(String(ask.value)).prefix;
    return !(a.startsWith(b) || b.startsWith(a));
  }
  return false;
}
