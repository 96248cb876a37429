import { z } from 'zod';

/**
 * What was decided about one tool call. `auto_*` and `session_grant` are decided without asking:
 * by a rule or setting, or by an earlier "Allow for this chat". `timeout` and `cancelled` are
 * never recorded as a person's "deny".
 */
export const AuditDecisionSchema = z.enum([
  'allow_session',
  'allow_once',
  'deny',
  'timeout',
  'cancelled',
  'auto_allow',
  'auto_deny',
  'session_grant',
]);
export type AuditDecision = z.infer<typeof AuditDecisionSchema>;

/** Who decided: a person, the policy (rules, settings, grants), or the system (timeouts, stops, the CLI's non-interactive mode). */
export const AuditActorSchema = z.enum(['user', 'policy', 'system']);
export type AuditActor = z.infer<typeof AuditActorSchema>;

export const AuditKindSchema = z.enum(['decision', 'result']);
export type AuditKind = z.infer<typeof AuditKindSchema>;

/** One row of the audit log as it can be shown and exported (arguments already redacted). */
export const AuditEntrySchema = z.object({
  sequence: z.number().int().positive(),
  /** ISO 8601, UTC. */
  time: z.string(),
  kind: AuditKindSchema,
  chatId: z.string(),
  exchangeId: z.string().nullable(),
  toolCallId: z.string(),
  serverName: z.string(),
  toolName: z.string(),
  definitionHash: z.string().nullable(),
  /** Decision rows only. */
  decision: AuditDecisionSchema.nullable(),
  actor: AuditActorSchema.nullable(),
  /** The rule, setting or grant that decided, in words ("tool setting 'Files.read_file': auto-approve"). */
  decidedBy: z.string().nullable(),
  /** The person's reason for a deny, when given. */
  reason: z.string().nullable(),
  /** Redacted arguments and the SHA-256 of the canonical original arguments. */
  args: z.unknown(),
  argsHash: z.string().nullable(),
  editedArgs: z.unknown().nullable(),
  editedArgsHash: z.string().nullable(),
  /** Result rows only. */
  outcome: z.enum(['success', 'error']).nullable(),
  durationMs: z.number().nullable(),
  resultBytes: z.number().int().nullable(),
  error: z.string().nullable(),
  /** SHA-256 over this row's canonical content and the previous row's hash. */
  hash: z.string(),
  previousHash: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
