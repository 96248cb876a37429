import { z } from 'zod';
import { AuditActorSchema, AuditDecisionSchema } from '../../shared/audit';
import { CALL_REQUESTERS } from '../../shared/closed-sets';
import { WorkbenchError } from '../errors';
import type { DecisionRecord, PolicyChangeRecord, TaskRecord, ToolResultRecord } from './audit-log';

const Text = z.string().min(1);
const OptionalText = z.string().optional();
const Args = z.record(z.string(), z.unknown());

/** Which call a row is about: the same in decision and result records. */
const CallSchema = z.object({
  chatId: Text,
  exchangeId: OptionalText,
  toolCallId: Text,
  serverName: z.string(),
  toolName: z.string(),
  definitionHash: OptionalText,
  requestedBy: z.enum(CALL_REQUESTERS).optional(),
});

/** The records callers hand to the log, checked at run time: a bad record is refused, never stored half-right. */
const DecisionRecordSchema = CallSchema.extend({
  decision: AuditDecisionSchema,
  actor: AuditActorSchema,
  decidedBy: Text,
  reason: OptionalText,
  args: Args,
  editedArgs: Args.optional(),
}) satisfies z.ZodType<DecisionRecord>;

const ToolResultRecordSchema = CallSchema.extend({
  outcome: z.enum(['success', 'error']),
  durationMs: z.number().nonnegative().finite(),
  resultBytes: z.number().int().nonnegative(),
  error: OptionalText,
}).refine((record) => record.outcome === 'error' || record.error === undefined, {
  message: 'a successful result has no error',
  path: ['error'],
}) satisfies z.ZodType<ToolResultRecord>;

const TaskRecordSchema = CallSchema.extend({
  event: z.enum(['started', 'cancel-requested', 'ended']),
  taskId: Text,
  status: Text,
  statusMessage: OptionalText,
  actor: z.enum(['user', 'system']),
}) satisfies z.ZodType<TaskRecord>;

const PolicyChangeRecordSchema = z.object({
  actor: z.enum(['user', 'cli', 'managed']),
  summary: Text,
  chatId: OptionalText,
  serverName: OptionalText,
  toolName: OptionalText,
  definitionHash: OptionalText,
  before: Args,
  after: Args,
}) satisfies z.ZodType<PolicyChangeRecord>;

/**
 * Raises `invalid_input` naming each bad field. Callers keep using their own record, not a parsed copy:
 * the arguments must be hashed exactly as given (a copy could drop or reorder odd keys such as `__proto__`).
 */
export function checkDecisionRecord(record: DecisionRecord): void {
  check(DecisionRecordSchema, record, 'decision');
}

export function checkTaskRecord(record: TaskRecord): void {
  check(TaskRecordSchema, record, 'task');
}

export function checkPolicyChangeRecord(record: PolicyChangeRecord): void {
  check(PolicyChangeRecordSchema, record, 'policy change');
}

export function checkToolResultRecord(record: ToolResultRecord): void {
  check(ToolResultRecordSchema, record, 'tool result');
}

function check(schema: z.ZodType, record: unknown, what: string): void {
  const parsed = schema.safeParse(record);
  if (parsed.success) return;
  const issues = parsed.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || 'record'}: ${issue.message}`,
  );
  throw new WorkbenchError('invalid_input', `Cannot record this ${what} in the audit log: ${issues.join('; ')}`, {
    issues,
  });
}
