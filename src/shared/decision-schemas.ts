import { z } from './zod';
import {
  AUDIT_DECISIONS,
  RESOLUTIONS,
  SERVER_REQUEST_ACTIONS,
  TOOL_CALL_DECISIONS,
  VERDICTS,
  WAITING_KINDS,
} from './decisions';

/**
 * The contract's schemas of the one decision vocabulary (src/shared/decisions.ts, which holds the words without zod).
 * Every other schema that speaks of a decision uses these.
 */

/** The pipeline's verdict: a decision's outcome, a rule's effect, a server's sampling setting. */
export const VerdictSchema = z.enum(VERDICTS);
/** How a request that waited for a person ended. */
export const ResolutionOutcomeSchema = z.enum(RESOLUTIONS);
/** Seed 000's answers to a tool call. */
export const ToolCallDecisionSchema = z.enum(TOOL_CALL_DECISIONS);
/** The audit log's decision rows. */
export const AuditDecisionSchema = z.enum(AUDIT_DECISIONS);
/** A person's answer to a server's request. */
export const ServerRequestActionSchema = z.enum(SERVER_REQUEST_ACTIONS);
/** What kind of request waits in the pending store. */
export const WaitingKindSchema = z.enum(WAITING_KINDS);
