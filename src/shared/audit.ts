import { z } from './zod';
import { AUDIT_ACTORS, AUDIT_KINDS, CALL_REQUESTERS } from './closed-sets';
import { AuditDecisionSchema } from './decision-schemas';

/**
 * What was decided about one tool call. `auto_*` and `session_grant` are decided without asking:
 * by a rule or setting, or by an earlier "Allow for this chat". `timeout` and `cancelled` are
 * never recorded as a person's "deny".
 */
export { AuditDecisionSchema };
export type { AuditDecision } from './decisions';

/**
 * Who decided: a person, the policy (rules, settings, grants), or the system (timeouts, stops, the CLI's non-interactive mode).
 * Policy rows (`kind: 'policy'`) say who changed the policy: `user` (the app or browser mode), `cli` (a person at the
 * `workbench` CLI) or `managed` (the organisation's policy file, as seen at start) (docs/user/audit-log.md).
 */
export const AuditActorSchema = z.enum(AUDIT_ACTORS);
export type AuditActor = z.infer<typeof AuditActorSchema>;

/**
 * `decision` and `result` rows are about one tool call; `sampling` and `elicitation` rows record what became of a
 * server's request of the model or the person (docs/user/server-requests.md): the request, its answer and who decided;
 * a `policy` row records a change of the approval policy (rules, modes, server trust, tool settings), a chat's mode,
 * grant or revocation, or the organisation's policy file: `args` holds the redacted values before the change and
 * `editedArgs` those after, keyed by what changed (docs/user/audit-log.md).
 * `checkpoint`: the chain head before it, signed (docs/user/audit-shipping.md#signed-checkpoints).
 */
export const AuditKindSchema = z.enum(AUDIT_KINDS);
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
  /**
   * Redacted arguments and the keyed hash of the canonical original arguments (`hmac-sha256:<hex>`; a bare SHA-256
   * in rows written before keys: docs/user/audit-log.md).
   */
  args: z.unknown(),
  argsHash: z.string().nullable(),
  editedArgs: z.unknown().nullable(),
  editedArgsHash: z.string().nullable(),
  /** Result rows only. */
  outcome: z.enum(['success', 'error']).nullable(),
  durationMs: z.number().nullable(),
  resultBytes: z.number().int().nullable(),
  error: z.string().nullable(),
  /**
   * Who asked for what the row records: `model`, `app` (an MCP App's view) or `server` (a server's sampling or
   * elicitation request); absent on policy and checkpoint rows (docs/user/audit-log.md#requested-by).
   */
  requestedBy: z.enum(CALL_REQUESTERS).optional(),
  /** SHA-256 over this row's canonical content and the previous row's hash. */
  hash: z.string(),
  previousHash: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** The SHA-256 hex form used for every hash in the audit log. */
export const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in lowercase hex');

/** The last row of the chain: its sequence and hash (sequence 0 and the genesis hash for an empty log). */
export const AuditHeadSchema = z.object({
  sequence: z.number().int().nonnegative(),
  hash: Sha256HexSchema,
});
export type AuditHead = z.infer<typeof AuditHeadSchema>;

export const AUDIT_QUERY_MAX_LIMIT = 500;
export const AUDIT_QUERY_DEFAULT_LIMIT = 100;

const FilterTextSchema = z.string().min(1).max(1000);
const InstantSchema = z.iso.datetime({ offset: true });

/**
 * Filters for `audit.query`; all optional and combined with AND. `from` is inclusive, `to` exclusive.
 * Pages run newest first; pass the previous page's `nextCursor` as `cursor` for the next one.
 */
export const AuditQueryInputSchema = z
  .strictObject({
    from: InstantSchema.optional(),
    to: InstantSchema.optional(),
    chatId: FilterTextSchema.optional(),
    serverName: FilterTextSchema.optional(),
    toolName: FilterTextSchema.optional(),
    decision: z
      .union([AuditDecisionSchema, z.array(AuditDecisionSchema).min(1).max(AuditDecisionSchema.options.length)], {
        error: `must be one of ${AuditDecisionSchema.options.join(', ')}, or a list of them`,
      })
      .optional(),
    actor: AuditActorSchema.optional(),
    kind: AuditKindSchema.optional(),
    /** Rows whose "decided by" text starts with this (the rule or setting an Insights chart names). */
    decidedBy: FilterTextSchema.optional(),
    /**
     * The rows of what the model asked for (`model`), an MCP App's view asked for (`app`, docs/user/mcp-apps.md) or
     * a server asked for (`server`: sampling and elicitation); other rows are left out.
     */
    requestedBy: z.enum(CALL_REQUESTERS).optional(),
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, 'must be a nextCursor from an earlier page')
      .optional(),
    limit: z.number().int().min(1).max(AUDIT_QUERY_MAX_LIMIT).optional(),
  })
  .refine(
    (query) => query.from === undefined || query.to === undefined || Date.parse(query.from) <= Date.parse(query.to),
    {
      message: 'from must not be after to',
      path: ['from'],
    },
  )
  .optional();
export type AuditQueryInput = z.input<typeof AuditQueryInputSchema>;
export type AuditQuery = NonNullable<z.output<typeof AuditQueryInputSchema>>;

export const AuditPageSchema = z.object({
  /** Newest first. */
  entries: z.array(AuditEntrySchema),
  /** Pass as `cursor` to get the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPageSchema>;

export const AuditExportFormatSchema = z.enum(['csv', 'jsonl']);
export type AuditExportFormat = z.infer<typeof AuditExportFormatSchema>;

/**
 * `audit.export`: the whole log to a file in the data folder's exports/ folder, named by `fileName` (or by
 * a `path` inside that folder; a name with the time when neither is given). The name must end in `.csv` /
 * `.jsonl` as the format says; an existing file is replaced only with `overwrite`. A path anywhere else is
 * refused: saving elsewhere is the Export button's download or `workbench audit export --out`.
 */
export const AuditExportInputSchema = z.strictObject({
  format: AuditExportFormatSchema,
  fileName: z.string().min(1).max(255).optional(),
  path: z.string().min(1).max(4096).optional(),
  overwrite: z.boolean().optional(),
});
export type AuditExportInput = z.infer<typeof AuditExportInputSchema>;

export const AuditExportResultSchema = z.object({
  path: z.string(),
  format: AuditExportFormatSchema,
  rowCount: z.number().int().nonnegative(),
  /** The chain head written into the file's header: the last exported row. */
  head: AuditHeadSchema,
  bytes: z.number().int().nonnegative(),
});
export type AuditExportResult = z.infer<typeof AuditExportResultSchema>;

/**
 * What `audit.verify` found wrong first:
 * - `content-changed`: the row's content no longer gives its stored hash;
 * - `missing`: a row is gone (a gap in the sequence, or rows after the recorded chain head);
 * - `inserted`: a row that was never appended through the log;
 * - `reordered`: a row sits at another place in the chain than where it was appended;
 * - `previous-hash-mismatch`: the row does not chain to the row before it;
 * - `head-mismatch`: the chain head recorded at each commit is gone or altered;
 * - `anchor-mismatch`: the row named by a trusted anchor (an earlier export's header) differs or is gone;
 * - `malformed`: an exported line or header that cannot be read;
 * - `unprotected`: rows that came in while the append-only triggers were missing (found and put back at an open).
 */
export const AuditProblemKindSchema = z.enum([
  'content-changed',
  'missing',
  'inserted',
  'reordered',
  'previous-hash-mismatch',
  'head-mismatch',
  'anchor-mismatch',
  'malformed',
  'unprotected',
  /** A signed checkpoint that does not verify against the public key, or signs a head the chain no longer has. */
  'checkpoint-invalid',
]);
export type AuditProblemKind = z.infer<typeof AuditProblemKindSchema>;

export const AuditProblemSchema = z.object({
  /** The sequence number of the first broken row. */
  sequence: z.number().int(),
  kind: AuditProblemKindSchema,
  /** What is wrong, in words. */
  message: z.string(),
  /** For an exported file: the 1-based line where the problem shows. */
  line: z.number().int().positive().optional(),
});
export type AuditProblem = z.infer<typeof AuditProblemSchema>;

/** `audit.verify`: optionally checks the chain still holds a row an earlier export recorded as its head. */
export const AuditVerifyInputSchema = z
  .strictObject({
    anchor: z.strictObject({ sequence: z.number().int().positive(), hash: Sha256HexSchema }).optional(),
    /** The Ed25519 public key (PEM) to check signed checkpoints against; the log's own key when absent. */
    checkpointPublicKey: z.string().min(1).max(4096).optional(),
  })
  .optional();
export type AuditVerifyInput = z.input<typeof AuditVerifyInputSchema>;

/**
 * A time the log's protections (its append-only triggers, the count of rows ever written) were found
 * missing or altered when it was opened or closed, and put back; with the rows that came in meanwhile.
 */
export const AuditNoticeSchema = z.object({
  detectedAt: z.string(),
  message: z.string(),
  /** The rows that came in without the protections; null when none did. */
  firstRow: z.number().int().positive().nullable(),
  lastRow: z.number().int().positive().nullable(),
});
export type AuditNotice = z.infer<typeof AuditNoticeSchema>;

export const AuditVerifyResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    /** Rows checked. */
    rowCount: z.number().int().nonnegative(),
    head: AuditHeadSchema,
    notices: z.array(AuditNoticeSchema).optional(),
  }),
  z.object({
    ok: z.literal(false),
    /** Rows that verified before the first problem. */
    rowCount: z.number().int().nonnegative(),
    problem: AuditProblemSchema,
    notices: z.array(AuditNoticeSchema).optional(),
  }),
]);
export type AuditVerifyResult = z.infer<typeof AuditVerifyResultSchema>;

/** Progress of a long audit operation (an export or a verification), pushed as `audit.onDidProgress`. */
export const AuditProgressSchema = z.object({
  operation: z.enum(['export', 'verify']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
});
export type AuditProgress = z.infer<typeof AuditProgressSchema>;

// ── Export as a download (the renderer saves it where the person picks, in Electron and browser mode alike) ──

/** `audit.exportPrepare`: writes the export (the same file `audit.export` writes) to a private temporary file. */
export const AuditExportPrepareInputSchema = z.strictObject({ format: AuditExportFormatSchema });
export const AuditExportPrepareOutputSchema = AuditExportResultSchema.omit({ path: true }).extend({
  /** Names the prepared file in `audit.exportRead`; valid until it is read to the end or expires. */
  exportId: z.string(),
  /** A file name to suggest to the person: `ai-workbench-audit-<date>.csv`. */
  fileName: z.string(),
});
export type AuditExportPrepareOutput = z.infer<typeof AuditExportPrepareOutputSchema>;

export const AUDIT_EXPORT_READ_CHUNK_BYTES = 1024 * 1024;

/** `audit.exportRead`: the bytes of a prepared export from `offset`, base64-encoded; the file is removed after the last chunk. */
export const AuditExportReadInputSchema = z.strictObject({
  exportId: z.string().min(1).max(100),
  offset: z.number().int().nonnegative(),
});
export const AuditExportReadOutputSchema = z.object({
  base64: z.string(),
  nextOffset: z.number().int().nonnegative(),
  done: z.boolean(),
});
export type AuditExportReadOutput = z.infer<typeof AuditExportReadOutputSchema>;
