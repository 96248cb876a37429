/**
 * The closed sets of words some of the contract's enums are made of, in a module without zod: the `workbench`
 * command tree (its options' choices and `--help`) is built from these, so a command that needs no schema starts
 * without loading zod (docs/dev/benchmarks.md, `cli-start`). The schemas are `z.enum(` these `)`.
 */

/** audit.ts `AuditDecisionSchema`: the one list of decisions lives in decisions.ts. */
export { AUDIT_DECISIONS } from './decisions';
/** audit.ts `AuditActorSchema`. */
export const AUDIT_ACTORS = ['user', 'policy', 'system', 'cli', 'managed'] as const;
/** audit.ts `AuditKindSchema`. */
export const AUDIT_KINDS = ['decision', 'result', 'sampling', 'elicitation', 'policy', 'checkpoint', 'task'] as const;
/** audit-stats.ts `InsightCallKindSchema`: `app-tool-call` is a tool call an MCP App's view made (docs/user/mcp-apps.md), `tool` the model's. */
export const INSIGHT_CALL_KINDS = ['tool', 'sampling', 'elicitation', 'app-tool-call'] as const;
/**
 * audit.ts `AuditEntry.requestedBy`, `AuditQuery.requestedBy`: who asked for what a row records — a tool call the model
 * asked for, one an MCP App's view asked for, or a server's own request of the model or the person (sampling,
 * elicitation) (docs/user/audit-log.md#requested-by).
 */
export const CALL_REQUESTERS = ['model', 'app', 'server'] as const;
/** approval.ts `GlobalApprovalModeSchema`. */
export const GLOBAL_APPROVAL_MODES = ['ask', 'auto-approve-read-only-trusted', 'never-ask'] as const;
/** approval.ts `ToolApprovalSettingSchema`. */
export const TOOL_APPROVAL_SETTINGS = ['auto-approve', 'always-ask', 'inherit'] as const;
/** approval.ts `ChatApprovalModeSchema`. */
export const CHAT_APPROVAL_MODES = ['use-tool-settings', 'always-ask', 'never-ask'] as const;
/** Whether a server may sample the chat's model (docs/user/server-requests.md#sampling). */
export { VERDICTS as SAMPLING_POLICIES } from './decisions';
/** The tokens a server may have the model write per chat: the default and the most that can be set. */
export const DEFAULT_SAMPLING_TOKEN_BUDGET = 10_000;
export const MAX_SAMPLING_TOKEN_BUDGET = 10_000_000;
/** llm.ts `ProviderKindSchema`. */
export const PROVIDER_KINDS = ['openai', 'openai-compatible', 'anthropic', 'gemini', 'demo'] as const;
/** mcp.ts `McpLogLevelSchema` (RFC 5424's severities, as MCP names them). */
export const MCP_LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** Whether `value` is one of `values` (the check `Schema.safeParse(value).success` makes, without zod). */
export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** The JWS algorithms a pre-registered client's private key may sign with (`private_key_jwt`, RFC 7523). */
export const OAUTH_SIGNING_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
] as const;
