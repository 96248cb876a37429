import { z } from './zod';
import { AuditHeadSchema, AuditProblemSchema } from './audit';

/**
 * Audit shipping (docs/user/audit-shipping.md): every audit row delivered, at least once and in sequence order, to the
 * organisation's log pipeline. The `auditShipping` settings section; a managed-policy twin with the same
 * shape can later add sinks the person cannot remove (the shipper takes a list of sinks and does not care
 * where each came from: `origin` says so in the status).
 */

/** Names a sink in the cursor table and the status; changing it starts that sink again from row 1. */
export const SinkIdSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    'must be 1–63 lowercase letters, digits or dashes, starting with a letter or digit',
  );

const BatchSizeSchema = z.number().int().min(1).max(5000);

/** TLS per RFC 5425. Files, not inline PEM, so no key material sits in settings.json. */
export const SyslogTlsSchema = z.strictObject({
  /** PEM file of the CA that signed the receiver's certificate; the system's CAs when absent. */
  caFile: z.string().min(1).max(4096).optional(),
  /** The name the receiver's certificate must carry; the host when absent. */
  serverName: z.string().min(1).max(255).optional(),
  /** A client certificate and key (PEM files) for receivers that require mutual TLS. */
  certFile: z.string().min(1).max(4096).optional(),
  keyFile: z.string().min(1).max(4096).optional(),
});

/** RFC 5424 syslog over TCP with octet-counted framing (RFC 6587 §3.4.1), optionally TLS (RFC 5425). */
export const SyslogSinkSchema = z.strictObject({
  type: z.literal('syslog'),
  id: SinkIdSchema,
  enabled: z.boolean().default(true),
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535),
  tls: SyslogTlsSchema.optional(),
  /** RFC 5424 facility; 13 is "log audit". */
  facility: z.number().int().min(0).max(23).default(13),
  /** Rows per batch (one write to the socket). */
  batchSize: BatchSizeSchema.default(500),
});
export type SyslogSinkConfig = z.output<typeof SyslogSinkSchema>;

/**
 * OpenTelemetry logs over OTLP/HTTP. Endpoint, headers and TLS come from the standard
 * `OTEL_EXPORTER_OTLP_*` variables unless set here (secrets such as API keys belong in the variables).
 */
export const OtlpSinkSchema = z.strictObject({
  type: z.literal('otlp'),
  id: SinkIdSchema,
  enabled: z.boolean().default(true),
  /** The full logs URL (…/v1/logs); `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT` when absent. */
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  batchSize: BatchSizeSchema.default(500),
});
export type OtlpSinkConfig = z.output<typeof OtlpSinkSchema>;

export const AuditSinkSchema = z.discriminatedUnion('type', [SyslogSinkSchema, OtlpSinkSchema]);
export type AuditSinkConfig = z.output<typeof AuditSinkSchema>;

/**
 * Signed checkpoints (docs/user/audit-shipping.md#signed-checkpoints): every `everyRows` rows, or every `everyMinutes`
 * minutes when rows came in meanwhile, a `checkpoint` row signs the chain head with the log's Ed25519 key.
 */
const checkpointFields = {
  enabled: z.boolean(),
  everyRows: z.number().int().min(10).max(1_000_000),
  everyMinutes: z
    .number()
    .int()
    .min(1)
    .max(24 * 60),
};
export const AuditCheckpointSettingsSchema = z.strictObject({
  enabled: checkpointFields.enabled.default(false),
  everyRows: checkpointFields.everyRows.default(1000),
  everyMinutes: checkpointFields.everyMinutes.default(60),
});
export type AuditCheckpointSettings = z.output<typeof AuditCheckpointSettingsSchema>;

export const AuditShippingSettingsSchema = z
  .strictObject({
    sinks: z.array(AuditSinkSchema).max(8).default([]),
    checkpoints: AuditCheckpointSettingsSchema.default({ enabled: false, everyRows: 1000, everyMinutes: 60 }),
  })
  .refine((settings) => new Set(settings.sinks.map((sink) => sink.id)).size === settings.sinks.length, {
    message: 'every sink needs its own id',
    path: ['sinks'],
  });
export type AuditShippingSettings = z.output<typeof AuditShippingSettingsSchema>;

export const AUDIT_SHIPPING_SECTION = 'auditShipping';

// ── The settings page: sinks added, edited and removed through the contract ──

/** An HTTP header name (RFC 9110 token). Header values are secrets: they go in, they never come out. */
export const OtlpHeaderNameSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name (letters, digits, dashes)');

/** A sink as the settings page sees it: its settings, and for OTLP the names of the headers it sends (never their values). */
export const AuditSinkViewSchema = z.discriminatedUnion('type', [
  SyslogSinkSchema,
  OtlpSinkSchema.extend({ headerNames: z.array(z.string()) }),
]);
export type AuditSinkView = z.infer<typeof AuditSinkViewSchema>;

export const AuditShippingSinksSchema = z.object({
  sinks: z.array(AuditSinkViewSchema),
  /** The organisation's locked sinks (managed policy): shown, never edited or removed (docs/user/organisation-policy.md). */
  locked: z.array(AuditSinkViewSchema),
  /**
   * `sinks` are the organisation's default sinks: settings.json has no audit shipping of its own, and they ship until
   * the person adds, edits or removes one (docs/user/organisation-policy.md). Absent: false.
   */
  defaulted: z.boolean().optional(),
});
export type AuditShippingSinks = z.infer<typeof AuditShippingSinksSchema>;

/** `audit.saveShippingSink`: adds a sink, or replaces the one called `previousId` (renaming it ships the whole log to it again). */
export const AuditSinkSaveInputSchema = z.strictObject({
  previousId: SinkIdSchema.optional(),
  sink: AuditSinkSchema,
  /** OTLP only: a value sets the header, null removes it, a name left out stays as it is. */
  headers: z
    .record(
      OtlpHeaderNameSchema,
      z
        .string()
        .max(8192)
        .regex(/^[^\r\n]*$/, 'must be one line')
        .nullable(),
    )
    .optional(),
});
export type AuditSinkSaveInput = z.input<typeof AuditSinkSaveInputSchema>;

/** `audit.checkpoints`: the setting, and the public key a verifier needs (null until the first checkpoint made one). */
export const AuditCheckpointsViewSchema = z.object({
  settings: AuditCheckpointSettingsSchema,
  publicKeyPem: z.string().nullable(),
  keyId: z.string().nullable(),
});
export type AuditCheckpointsView = z.infer<typeof AuditCheckpointsViewSchema>;

/** A change names only what changes: no defaults here (zod would fill in `enabled: false` for a change of interval). */
export const AuditCheckpointsSetInputSchema = z.strictObject(checkpointFields).partial();
export type AuditCheckpointsSetInput = z.infer<typeof AuditCheckpointsSetInputSchema>;

export const AuditSinkRemoveInputSchema = z.strictObject({ id: SinkIdSchema });
export type AuditSinkRemoveInput = z.infer<typeof AuditSinkRemoveInputSchema>;

/** One sink's progress: how far behind the log it is, and what went wrong last. */
export const AuditSinkStatusSchema = z.object({
  id: z.string(),
  type: z.enum(['syslog', 'otlp']),
  /** Where the sink was configured: the person's settings (the managed policy's later). */
  origin: z.enum(['settings', 'managed']),
  enabled: z.boolean(),
  /** The last sequence the sink acknowledged (0: nothing yet). */
  acknowledgedSequence: z.number().int().nonnegative(),
  /** When it did (ISO 8601), null before the first acknowledgement. */
  acknowledgedAt: z.string().nullable(),
  /** The log's last sequence. */
  headSequence: z.number().int().nonnegative(),
  /** Rows recorded but not yet acknowledged. */
  lagRows: z.number().int().nonnegative(),
  /** How old the oldest unacknowledged row is, in seconds (0 when none waits). */
  lagSeconds: z.number().nonnegative(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
});
export type AuditSinkStatus = z.infer<typeof AuditSinkStatusSchema>;

export const AuditShippingStatusSchema = z.object({ sinks: z.array(AuditSinkStatusSchema) });
export type AuditShippingStatus = z.infer<typeof AuditShippingStatusSchema>;

// ── Anchoring outside the machine: the local chain checked against what a collector received ──

/**
 * `audit.verifyAgainst`: the local log checked against a file of shipped rows (JSONL, or an rsyslog file written
 * with the raw-message template). The path must be absolute; the file is only read, and no text of it is ever
 * echoed back (a problem names line numbers, sequences and hashes).
 */
export const AuditVerifyAgainstInputSchema = z.strictObject({
  path: z.string().min(1).max(4096),
  /** The Ed25519 public key (PEM) to check signed checkpoints against; the log's own key when absent. */
  checkpointPublicKey: z.string().min(1).max(4096).optional(),
});
export type AuditVerifyAgainstInput = z.infer<typeof AuditVerifyAgainstInputSchema>;

/** What the collector's file held. */
export const ReceivedSummarySchema = z.object({
  /** Distinct audit rows received. */
  rows: z.number().int().nonnegative(),
  /** The highest sequence received (0: none). */
  lastSequence: z.number().int().nonnegative(),
  /** Rows received more than once (at-least-once delivery; each copy identical). */
  duplicates: z.number().int().nonnegative(),
  /** Messages cut off in transit (a killed sender): their rows count only if a whole copy arrived too. */
  cutOff: z.number().int().nonnegative(),
  /** Lines that are not audit rows (other messages in the same file). */
  otherLines: z.number().int().nonnegative(),
  /** Sequences up to `lastSequence` the collector never received (a sink that was added late starts at 1 all the same). */
  notReceived: z.number().int().nonnegative(),
});
export type ReceivedSummary = z.infer<typeof ReceivedSummarySchema>;

export const AuditVerifyAgainstResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    rowCount: z.number().int().nonnegative(),
    head: AuditHeadSchema,
    received: ReceivedSummarySchema,
  }),
  z.object({
    ok: z.literal(false),
    rowCount: z.number().int().nonnegative(),
    problem: AuditProblemSchema,
    received: ReceivedSummarySchema,
  }),
]);
export type AuditVerifyAgainstResult = z.infer<typeof AuditVerifyAgainstResultSchema>;
