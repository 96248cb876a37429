/**
 * Accepting an Insights suggestion as a step of the trust invariant (docs/dev/testing.md#the-trust-invariant,
 * docs/user/insights.md#suggestions): the person allows the same call of one of Files' tools a few times, then accepts
 * the suggestion to stop asking, when one is made. Checked in the step, besides what every step checks:
 * - every call the suggested rule would allow is one the person allowed, for the very server (identity) that has the
 *   name now: a suggestion is never broader than the calls it saw, and calls made to another server under the name
 *   count for nothing;
 * - accepted, the rule is an allow rule for that name and tool with exactly the suggested condition, and a call one
 *   value away from every allowed call (another value, one argument more or fewer) is not decided by it;
 * - a deny rule in force that catches one of the calls refuses the acceptance (what the deny rule catches never runs
 *   through the new rule either: checked by (2) on every later run).
 * What the rule allows later is bound to the server it was made for: it joins `madeAllows`, so check (1) fails when
 * it allows a call of another server.
 */
import fc from 'fast-check';
import type { AuditEntry } from '../../../shared/audit';
import type { PolicyExplanation } from '../../../shared/approval';
import { canonicalJson } from '../../../shared/canonical-json';
import { COMMANDS, PATHS, ROUTINE_NONCE, TOOLS, USER_RULES, ruleDraft } from './invariant-catalogue';
import {
  chatOf,
  expectOutcome,
  Step,
  type Command,
  type InvariantModel,
  type InvariantWorld,
} from './invariant-commands';
import type { Harness } from './invariant-harness';
import { argumentsFor } from './scripted-model';

const PERSON_ALLOWS = new Set(['allow_once', 'allow_session']);

class SuggestionError extends Error {
  constructor(invariant: string, detail: string) {
    super(`${invariant}: ${detail}`);
    this.name = 'InvariantError';
  }
}

/** The decision rows of one tool, oldest first. */
async function decisionRows(harness: Harness, toolName: string): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await harness.ok('audit.query', {
      kind: 'decision',
      toolName,
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows.reverse();
}

export class AcceptSuggestion extends Step {
  constructor(
    readonly chat: number,
    /** Files' write_file (0) or read_file (1). */
    readonly tool: 0 | 1,
    /** The values of its field the routine calls take in turn (indexes into PATHS). */
    readonly values: readonly number[],
    /** How many routine calls the person makes before looking at the suggestions. */
    readonly times: number,
    /** A deny rule of the catalogue the person adds before accepting (a USER_RULES key), or none. */
    readonly denyFirst: string | null,
  ) {
    super();
  }
  override check(model: Readonly<InvariantModel>): boolean {
    return model.waiting[this.chat] === 0;
  }
  protected async act(world: InvariantWorld): Promise<void> {
    const { harness } = world;
    const chatId = chatOf(world, this.chat);
    const catalogueTool = TOOLS[this.tool] as (typeof TOOLS)[number];
    for (let index = 0; index < this.times; index++) {
      // A moment passes between two routine calls (and after whatever came before, a server added at this instant).
      await world.advanceTime(1_000);
      if ((await harness.ok('chat.messages', { chatId, limit: 1 })).activity.status !== 'idle') break;
      const value = this.values[index % this.values.length] as number;
      const plan = [[{ tool: this.tool, value, routine: true }]];
      expectOutcome(
        world,
        'chat.send routine',
        await harness.call('chat.send', { chatId, message: { role: 'user', text: world.model.messageFor(plan) } }),
        'ok',
      );
      harness.tally.userMessages += 1;
      await harness.settle();
      const waiting = (await harness.ok('approvals.pending', { chatId })).approvals;
      if (waiting.length === 0) continue;
      const hit = waiting.some(
        ({ request }) => harness.denyHits(request.serverName, request.toolName, request.args).length > 0,
      );
      const unbound = waiting.some(({ request }) => !harness.bindings.has(request.serverName));
      const envelope = await harness.call('chat.send', {
        chatId,
        message: {
          role: 'approval',
          toolCallApprovals: waiting.map(({ request }) => ({
            toolCallId: request.toolCallId,
            decision: 'TOOL_CALL_DECISION_ALLOW_ONCE',
          })),
        },
      });
      expectOutcome(world, 'chat.send allow once (routine)', envelope, hit || unbound ? 'either' : 'ok');
      if (envelope.ok) harness.tally.approvalsApplied += 1;
      await harness.settle();
    }

    if (this.denyFirst !== null) {
      const update = {
        rules: { add: [ruleDraft(this.denyFirst, 'deny', `${this.denyFirst}--${world.nextRuleId++}`)] },
      };
      const envelope = await harness.call('policy.update', update);
      expectOutcome(world, `policy.update deny ${this.denyFirst}`, envelope, 'ok');
      if (envelope.ok) harness.noteView(envelope.value as Parameters<Harness['noteView']>[0]);
    }
    const name = harness.roleNames.get('Files') ?? 'Files';
    const { suggestions } = await harness.ok('audit.suggestions', {});
    const found = suggestions.find(
      (suggestion) =>
        suggestion.kind === 'allow-tool' &&
        suggestion.serverName === name &&
        suggestion.toolName === catalogueTool.name,
    );
    if (found?.kind !== 'allow-tool') return;
    harness.tally.suggestionsMade += 1;
    const label = harness.bindings.get(name)?.label;
    if (label === undefined) throw new SuggestionError('a suggestion was made for a name no server has', name);

    // Never broader than the calls seen: each call it would allow, the person allowed for this very server.
    const seen = new Map<string, Record<string, unknown>>();
    for (const row of await decisionRows(harness, catalogueTool.name)) {
      if (!PERSON_ALLOWS.has(row.decision ?? '') || (row.actor !== 'user' && row.actor !== 'cli')) continue;
      if (harness.labelMeant(row.serverName, row.sequence) !== label) continue;
      const args = (row.editedArgs ?? row.args) as Record<string, unknown>;
      seen.set(canonicalJson(args), args);
    }
    for (const allowed of found.allows) {
      if (!seen.has(canonicalJson(JSON.parse(allowed))))
        throw new SuggestionError(
          'a suggestion would allow a call the person never allowed for this server',
          `${name}.${catalogueTool.name} ${allowed} (${label}); allowed were ${[...seen.keys()].join(', ') || 'none'}`,
        );
    }

    if (found.allows.length === 0 || seen.size === 0)
      throw new SuggestionError(
        'a suggestion does not list the calls it would allow',
        `${name}.${catalogueTool.name}: ${JSON.stringify(found.args)}`,
      );
    const allowedCalls = found.allows.map((allowed) => JSON.parse(allowed) as Record<string, unknown>);
    const denyHit = allowedCalls.some((args) => harness.denyHits(name, catalogueTool.name, args).length > 0);
    const envelope = await harness.call('audit.acceptSuggestion', { id: found.id });
    // A deny rule that catches one of its calls refuses it; an ask rule or the organisation's lock may too.
    expectOutcome(world, `audit.acceptSuggestion ${found.allows.join(' ')}`, envelope, denyHit ? 'refused' : 'either');
    if (!envelope.ok) {
      harness.tally.suggestionsRefused += 1;
      return;
    }
    const view = await harness.ok('policy.get');
    harness.noteView(view);
    const rules = harness.userRules();
    const number = rules.findIndex((rule) => rule.id === (envelope.value as { ruleId: string }).ruleId) + 1;
    const rule = rules[number - 1];
    if (
      rule === undefined ||
      rule.effect !== 'allow' ||
      rule.server !== name ||
      rule.tool !== catalogueTool.name ||
      canonicalJson(rule.args ?? []) !== canonicalJson(found.args)
    )
      throw new SuggestionError(
        'an accepted suggestion is not the rule it proposed',
        `${JSON.stringify(rule)} for ${name}.${catalogueTool.name} ${JSON.stringify(found.args)}`,
      );
    // A call one step away from every allowed one is not this rule's to decide.
    const byThisRule = `Auto-approved by your rule #${number}:`;
    const allowedSet = new Set(found.allows.map((allowed) => canonicalJson(JSON.parse(allowed))));
    const first = [...seen.values()][0] as Record<string, unknown>;
    const { nonce: _nonce, ...withoutNonce } = first;
    const others = [
      ...(catalogueTool.field === 'path' ? PATHS : COMMANDS).map((other) => ({
        ...first,
        [catalogueTool.field]: other,
      })),
      { ...first, extra: 'x' },
      { ...first, nonce: 'n1' },
      withoutNonce,
    ];
    for (const args of others) {
      if (allowedSet.has(canonicalJson(args))) continue;
      const explained: PolicyExplanation = await harness.ok('policy.explain', {
        server: name,
        tool: catalogueTool.name,
        args,
      });
      if (explained.outcome === 'allow' && explained.reason.startsWith(byThisRule))
        throw new SuggestionError(
          'an accepted suggestion allows a call the person never allowed',
          `${name}.${catalogueTool.name} ${JSON.stringify(args)}: ${explained.reason}`,
        );
    }
    harness.madeAllows.push({ label, name, what: `suggestion accepted (${rule.id})` });
    harness.tally.suggestionsAccepted += 1;
  }
  toString(): string {
    const tool = TOOLS[this.tool] as (typeof TOOLS)[number];
    const calls = this.values.map((value) =>
      JSON.stringify(argumentsFor({ tool: this.tool, value }, ROUTINE_NONCE).args),
    );
    return `acceptSuggestion(chat ${this.chat}, ${this.times}× ${tool.name} ${calls.join(' / ')}${this.denyFirst === null ? '' : `, then deny ${this.denyFirst}`})`;
  }
}

/**
 * Mostly one routine call (a suggestion names it), sometimes two; five or six times, sometimes fewer; sometimes a deny
 * rule added on Files' paths before accepting (it may catch one of two calls: the acceptance must then be refused).
 */
export const acceptSuggestionArb: fc.Arbitrary<Command> = fc
  .tuple(
    fc.nat({ max: 1 }),
    fc.constantFrom<0 | 1>(0, 1),
    fc.array(fc.nat({ max: PATHS.length - 1 }), { minLength: 1, maxLength: 2 }),
    fc.constantFrom(3, 5, 5, 6, 6),
    fc.option(fc.constantFrom(...USER_RULES.filter((rule) => rule.draft.server !== 'Shell').map((rule) => rule.key)), {
      nil: null,
      freq: 2,
    }),
  )
  .map(([chat, tool, values, times, denyFirst]) => new AcceptSuggestion(chat, tool, values, times, denyFirst));
