import type { ApprovalRule, ApprovalRuleDraft, ArgumentMatcher } from '../../../../shared/approval';
import { normaliseField } from '../field-problems';

/** A rule as the form edits it: every value as text. */
export interface RuleForm {
  id?: string | undefined;
  effect: ApprovalRule['effect'];
  server: string;
  tool: string;
  args: { pointer: string; match: ArgumentMatcher['match']; value: string }[];
  note: string;
}

export const EMPTY_RULE: RuleForm = { effect: 'deny', server: '*', tool: '*', args: [], note: '' };

export function ruleToForm(rule: ApprovalRule): RuleForm {
  return {
    id: rule.id,
    effect: rule.effect,
    server: rule.server,
    tool: rule.tool,
    args: (rule.args ?? []).map((matcher) => ({
      pointer: matcher.pointer,
      match: matcher.match,
      value:
        typeof matcher.value === 'string' && matcher.match !== 'equals' ? matcher.value : JSON.stringify(matcher.value),
    })),
    note: rule.note ?? '',
  };
}

/**
 * The draft to send. `equals` reads its value as JSON when it is JSON (`42`, `true`, `null`, `"x"`) and
 * as plain text otherwise; glob and regex values are always text. Empty note and conditions are left out.
 */
export function formToDraft(form: RuleForm): ApprovalRuleDraft {
  const args = form.args.map((matcher): ArgumentMatcher => ({
    pointer: matcher.pointer.trim(),
    match: matcher.match,
    value: matcherValue(matcher.match, matcher.value),
  }));
  return {
    ...(form.id ? { id: form.id } : {}),
    effect: form.effect,
    server: form.server.trim(),
    tool: form.tool.trim(),
    ...(args.length > 0 ? { args } : {}),
    ...(form.note.trim() ? { note: form.note.trim() } : {}),
  };
}

function matcherValue(match: ArgumentMatcher['match'], text: string): ArgumentMatcher['value'] {
  if (match !== 'equals') return text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed === 'string' || typeof parsed === 'number' || typeof parsed === 'boolean')
      return parsed;
  } catch {
    // Not JSON: compare as text.
  }
  return text;
}

/**
 * Problems from a refused save, keyed by the form's field (`server`, `args.0.value`): the policy's own
 * checks name `args[0].value`, the contract's schema names `rules.add.0.args.0.value`.
 */
export function ruleFieldProblems(problems: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(problems)) {
    const key = normaliseField(field).replace(/^rules\.(add|update)\.\d+\./, '');
    out[key] = out[key] ? `${out[key]}; ${message}` : message;
  }
  return out;
}

/** A rule in one line: `Files · write_* when /path glob /etc/**`. */
export function describeRule(rule: Pick<ApprovalRule, 'server' | 'tool' | 'args'>): string {
  const conditions = (rule.args ?? []).map(
    (matcher) =>
      `${matcher.pointer || '(whole arguments)'} ${matcher.match} ${typeof matcher.value === 'string' ? matcher.value : JSON.stringify(matcher.value)}`,
  );
  return `${rule.server} · ${rule.tool}${conditions.length ? ` when ${conditions.join(' and ')}` : ''}`;
}
