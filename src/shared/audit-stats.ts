import { z } from './zod';
import { VerdictSchema } from './decision-schemas';
import { ArgumentMatcherSchema } from './approval';
import { INSIGHT_CALL_KINDS } from './closed-sets';

/**
 * Approval insights (docs/user/insights.md): what was asked and decided over a period, as figures the Insights page
 * draws and `workbench audit stats` prints. Computed from the audit log in main (src/main/audit/audit-stats.ts).
 */

/** What a decision was about: the model's tool call, a server's sampling or elicitation request, an app's tool call. */
export { INSIGHT_CALL_KINDS };
export const InsightCallKindSchema = z.enum(INSIGHT_CALL_KINDS);
export type InsightCallKind = z.infer<typeof InsightCallKindSchema>;

/** The most days one request may span (a year and a bit), and the most hours when bucketed by hour. */
export const AUDIT_STATS_MAX_DAYS = 400;
export const AUDIT_STATS_MAX_HOURS = 24 * 31;

const FilterTextSchema = z.string().min(1).max(1000);
const InstantSchema = z.iso.datetime({ offset: true });

/** `audit.stats`: the period (`from` inclusive, `to` exclusive), the bucket and the filters; all combine with AND. */
export const AuditStatsInputSchema = z
  .strictObject({
    from: InstantSchema,
    to: InstantSchema,
    bucket: z.enum(['day', 'hour']).optional(),
    /** The person's offset from UTC in minutes (east positive), so a day starts at their midnight. */
    utcOffsetMinutes: z
      .number()
      .int()
      .min(-14 * 60)
      .max(14 * 60)
      .optional(),
    serverName: FilterTextSchema.optional(),
    toolName: FilterTextSchema.optional(),
    chatId: FilterTextSchema.optional(),
    kind: InsightCallKindSchema.optional(),
  })
  .refine((input) => Date.parse(input.from) < Date.parse(input.to), {
    message: 'from must be before to',
    path: ['from'],
  })
  .refine((input) => (Date.parse(input.to) - Date.parse(input.from)) / 86_400_000 <= AUDIT_STATS_MAX_DAYS, {
    message: `the period may span at most ${AUDIT_STATS_MAX_DAYS} days`,
    path: ['to'],
  })
  .refine(
    (input) =>
      input.bucket !== 'hour' || (Date.parse(input.to) - Date.parse(input.from)) / 3_600_000 <= AUDIT_STATS_MAX_HOURS,
    {
      message: `by hour, the period may span at most ${AUDIT_STATS_MAX_HOURS / 24} days`,
      path: ['bucket'],
    },
  );
export type AuditStatsInput = z.input<typeof AuditStatsInputSchema>;
export type AuditStatsQuery = z.output<typeof AuditStatsInputSchema>;

/**
 * How calls were answered. `asked` counts every call that waited for a person (whatever became of it): the sum of
 * `allowedByYou`, `deniedByYou`, `timedOut` and `cancelled`. The other five add up to every decision.
 */
export const DecisionCountsSchema = z.object({
  total: z.number().int().nonnegative(),
  asked: z.number().int().nonnegative(),
  allowedByYou: z.number().int().nonnegative(),
  allowedByPolicy: z.number().int().nonnegative(),
  deniedByYou: z.number().int().nonnegative(),
  deniedByPolicy: z.number().int().nonnegative(),
  timedOut: z.number().int().nonnegative(),
  cancelled: z.number().int().nonnegative(),
});
export type DecisionCounts = z.infer<typeof DecisionCountsSchema>;

/** The counts' names in the order the page stacks them. */
export const DECISION_COUNT_NAMES = [
  'allowedByYou',
  'allowedByPolicy',
  'deniedByYou',
  'deniedByPolicy',
  'timedOut',
  'cancelled',
] as const;
export type DecisionCountName = (typeof DECISION_COUNT_NAMES)[number];

/** What decided a call without asking, by its kind: a rule, a setting, a grant, approvals off. */
export const DECIDER_KINDS = [
  'rule',
  'organisation-rule',
  'tool-setting',
  'server-setting',
  'trusted-read-only',
  'chat-grant',
  'chat-never-ask',
  'approvals-off',
  'server-request-setting',
  'system',
  'other',
] as const;
export const DeciderKindSchema = z.enum(DECIDER_KINDS);
export type DeciderKind = z.infer<typeof DeciderKindSchema>;

export const DeciderSchema = z.object({
  kind: DeciderKindSchema,
  /** In words: "your rule #2: …", "tool setting 'Files.read_text_file'", "Allowed for this chat". */
  label: z.string(),
  /** A rule's id when it is one of the current policy's rules. */
  ruleId: z.string().nullable(),
  allowed: z.number().int().nonnegative(),
  denied: z.number().int().nonnegative(),
  /** Text that opens the matching rows in the audit viewer (its "decided by" filter). */
  decidedBy: z.string(),
});
export type Decider = z.infer<typeof DeciderSchema>;

export const StatsBucketSchema = DecisionCountsSchema.extend({
  /** The bucket's start, ISO 8601 UTC. */
  start: z.string(),
  /** Its label in the person's time: `2026-01-31` or `2026-01-31 14h`. */
  label: z.string(),
});
export type StatsBucket = z.infer<typeof StatsBucketSchema>;

/**
 * Set on the calls made under a server's name before the server that has it now was added, or before what it runs was
 * accepted (its `identity.since`, docs/user/insights.md#tools-asked-about-most): they were made to what the name meant
 * then, so they are counted apart from the current server's. The ISO time the current one's identity was recorded.
 */
const UntilSchema = z.string().optional();
export const ToolStatsSchema = DecisionCountsSchema.extend({
  serverName: z.string(),
  toolName: z.string(),
  until: UntilSchema,
});
export type ToolStats = z.infer<typeof ToolStatsSchema>;
export const ServerStatsSchema = DecisionCountsSchema.extend({ serverName: z.string(), until: UntilSchema });
export type ServerStats = z.infer<typeof ServerStatsSchema>;

/** A server's name as the figures show it: "Files", or "Files (before 2026-11-20 10:00 UTC)" for an earlier one's calls. */
export function serverLabel(entry: { serverName: string; until?: string | undefined }): string {
  return entry.until === undefined
    ? entry.serverName
    : `${entry.serverName} (before ${entry.until.slice(0, 16).replace('T', ' ')} UTC)`;
}

/** A rule of the current policy and how many calls of the period it decided. */
export const RuleStatsSchema = z.object({
  ruleId: z.string(),
  /** "your rule #2" or "your organisation's rule 'x'". */
  name: z.string(),
  description: z.string(),
  effect: VerdictSchema,
  managed: z.boolean(),
  /** Calls it decided without asking in the period (ask rules decide no call on their own: always 0). */
  decided: z.number().int().nonnegative(),
});
export type RuleStats = z.infer<typeof RuleStatsSchema>;

/** How long calls waited for a person, in buckets (`upToMs` null: longer than the last bound). */
export const WaitStatsSchema = z.object({
  /** Calls whose wait is known (those whose chat still exists). */
  measured: z.number().int().nonnegative(),
  /** The histogram bucket the median falls in ("5–15 s"), or null when nothing was measured. */
  medianBucket: z.string().nullable(),
  meanMs: z.number().nonnegative().nullable(),
  maxMs: z.number().nonnegative().nullable(),
  histogram: z.array(
    z.object({ upToMs: z.number().nullable(), label: z.string(), count: z.number().int().nonnegative() }),
  ),
  timedOut: z.number().int().nonnegative(),
});
export type WaitStats = z.infer<typeof WaitStatsSchema>;

export const AuditStatsSchema = z.object({
  from: z.string(),
  to: z.string(),
  bucket: z.enum(['day', 'hour']),
  totals: DecisionCountsSchema,
  timeline: z.array(StatsBucketSchema),
  tools: z.array(ToolStatsSchema),
  servers: z.array(ServerStatsSchema),
  /** What decided calls without asking (allowed or denied), most first. */
  deciders: z.array(DeciderSchema),
  /** Every rule of the current policy, most decisions first; those at 0 never matched in the period. */
  rules: z.array(RuleStatsSchema),
  waiting: WaitStatsSchema,
  /** The newest row the figures include (0 when none): the page says "as of". */
  headSequence: z.number().int().nonnegative(),
});
export type AuditStats = z.infer<typeof AuditStatsSchema>;

// ── Suggestions (docs/user/insights.md#suggestions) ──

/** The calls a suggestion is based on: a filter of the audit viewer, and how many rows it found. */
export const SuggestionEvidenceSchema = z.object({
  serverName: z.string().nullable(),
  toolName: z.string().nullable(),
  decidedBy: z.string().nullable(),
  decisions: z.array(z.string()),
  from: z.string(),
  to: z.string(),
  count: z.number().int().nonnegative(),
});
export type SuggestionEvidence = z.infer<typeof SuggestionEvidenceSchema>;

export const SuggestionSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('allow-tool'),
    id: z.string(),
    text: z.string(),
    serverName: z.string(),
    toolName: z.string(),
    /** The rule it proposes: this tool only, with conditions no broader than the calls seen. */
    args: z.array(ArgumentMatcherSchema),
    /** Every call the rule would allow, as canonical JSON of its arguments: exactly the calls seen. */
    allows: z.array(z.string()),
    /** What accepting changes, in the words of "remember from the card". */
    change: z.string(),
    evidence: SuggestionEvidenceSchema,
  }),
  z.object({
    kind: z.literal('unused-rule'),
    id: z.string(),
    text: z.string(),
    ruleId: z.string(),
    evidence: SuggestionEvidenceSchema,
  }),
  z.object({
    kind: z.literal('overlapping-rules'),
    id: z.string(),
    text: z.string(),
    ruleIds: z.tuple([z.string(), z.string()]),
    evidence: SuggestionEvidenceSchema,
  }),
]);
export type Suggestion = z.infer<typeof SuggestionSchema>;

export const AuditSuggestionsInputSchema = z.strictObject({
  /** How many days back the evidence reaches (7 by default). */
  days: z.number().int().min(1).max(AUDIT_STATS_MAX_DAYS).optional(),
});
export const AuditSuggestionsSchema = z.object({ suggestions: z.array(SuggestionSchema) });
export type AuditSuggestions = z.infer<typeof AuditSuggestionsSchema>;

/** Accepts an `allow-tool` suggestion by its id: main derives it again from the log, so only what the evidence shows is added. */
export const AuditAcceptSuggestionInputSchema = z.strictObject({
  id: z.string().min(1).max(2000),
  days: z.number().int().min(1).max(AUDIT_STATS_MAX_DAYS).optional(),
});
export const AuditAcceptSuggestionOutputSchema = z.object({ ruleId: z.string(), change: z.string(), undo: z.string() });
export type AuditAcceptSuggestionOutput = z.infer<typeof AuditAcceptSuggestionOutputSchema>;
