import { createHash } from 'node:crypto';
import {
  ApprovalPolicySchema,
  ManagedPolicySchema,
  type ChatGrant,
  type PolicyDecision,
  type ToolCallRequest,
} from '../../../shared/approval';
import { canonicalJson } from '../../../shared/canonical-json';
import type { ToolAnnotations, ToolDefinition, ToolDefinitionContent } from '../../../shared/tool';
import type {
  AuditRecorder,
  DecisionRecord,
  PolicyChangeRecord,
  TaskRecord,
  ToolResultRecord,
} from '../../audit/audit-log';
import { WorkbenchError } from '../../errors';
import { compilePolicy, type CompiledPolicy } from '../policy/compiled-policy';

/** Test helpers shared by the approval tests: tools with real definition hashes, policies from partial input, a recording audit log. */

export function definitionHash(content: ToolDefinitionContent): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

export function makeTool(
  serverName: string,
  name: string,
  options: { annotations?: ToolAnnotations; description?: string; inputSchema?: Record<string, unknown> } = {},
): ToolDefinition {
  const content: ToolDefinitionContent = {
    name,
    description: options.description ?? `${name} of ${serverName}`,
    inputSchema: options.inputSchema ?? { type: 'object', properties: { path: { type: 'string' } } },
    ...(options.annotations ? { annotations: options.annotations } : {}),
  };
  return { ...content, serverName, definitionHash: definitionHash(content) };
}

/** The same tool with another description: a new definition hash, and the earlier one as `previous`. */
export function changedTool(tool: ToolDefinition, description = `${tool.description ?? ''} (changed)`): ToolDefinition {
  const { serverName, definitionHash: previousHash, previous: _previous, ...content } = tool;
  const next = { ...content, description };
  return {
    ...next,
    serverName,
    definitionHash: definitionHash(next),
    previous: { ...content, definitionHash: previousHash },
  };
}

/** `trusted`: the servers marked trusted in the MCP settings. */
export function policyOf(policy: unknown = {}, managed?: unknown, trusted: readonly string[] = []): CompiledPolicy {
  return compilePolicy(
    ApprovalPolicySchema.parse(policy),
    managed === undefined ? null : ManagedPolicySchema.parse(managed),
    trusted,
  );
}

export function grantOf(chatId: string, tool: ToolDefinition, grantedAt = Date.UTC(2025, 0, 2, 12, 0)): ChatGrant {
  return { chatId, serverName: tool.serverName, toolName: tool.name, definitionHash: tool.definitionHash, grantedAt };
}

/** The WorkbenchError the action throws; fails when it throws anything else or nothing. */
export function refusal(action: () => unknown): WorkbenchError {
  try {
    action();
  } catch (error) {
    if (error instanceof WorkbenchError) return error;
    throw error;
  }
  throw new Error('expected a WorkbenchError, but nothing was thrown');
}

export const ASK_DECISION: PolicyDecision = {
  outcome: 'ask',
  source: { kind: 'global-setting', setting: 'ask' },
  reason: 'Asked: your global setting is to ask before every tool call',
  definitionChanged: false,
};

export function requestFor(
  tool: ToolDefinition,
  toolCallId: string,
  args: Record<string, unknown> = {},
): ToolCallRequest {
  return {
    toolCallId,
    serverName: tool.serverName,
    toolName: tool.name,
    args,
    definitionHash: tool.definitionHash,
    inputSchema: tool.inputSchema,
    decision: ASK_DECISION,
  };
}

/** An AuditRecorder that keeps what it was told, and can be told to fail. */
export interface RecordingAuditLog extends AuditRecorder {
  readonly decisions: DecisionRecord[];
  readonly results: ToolResultRecord[];
  readonly changes: PolicyChangeRecord[];
  readonly tasks: TaskRecord[];
  failNext: Error | null;
}

export function recordingAuditLog(): RecordingAuditLog {
  let sequence = 0;
  const log: RecordingAuditLog = {
    decisions: [],
    results: [],
    changes: [],
    tasks: [],
    failNext: null,
    recordDecision(record) {
      if (log.failNext) {
        const error = log.failNext;
        log.failNext = null;
        throw error;
      }
      log.decisions.push(record);
      return entry(++sequence, record.chatId, record.toolCallId, record.serverName, record.toolName);
    },
    recordDecisionsWith(records, claim, changes = []) {
      // Fails before the claim, as the SQLite log's one transaction would roll the claim back.
      if (log.failNext) {
        const error = log.failNext;
        log.failNext = null;
        throw error;
      }
      const claimed = claim();
      log.decisions.push(...records);
      log.changes.push(...changes);
      return claimed;
    },
    recordPolicyChange(record) {
      if (log.failNext) {
        const error = log.failNext;
        log.failNext = null;
        throw error;
      }
      log.changes.push(record);
      return {
        ...entry(++sequence, record.chatId ?? '', '', record.serverName ?? '', record.toolName ?? ''),
        kind: 'policy',
        actor: record.actor,
      };
    },
    recordToolResult(record) {
      log.results.push(record);
      return entry(++sequence, record.chatId, record.toolCallId, record.serverName, record.toolName);
    },
    recordTask(record) {
      log.tasks.push(record);
      return {
        ...entry(++sequence, record.chatId, record.toolCallId, record.serverName, record.toolName),
        kind: 'task',
      };
    },
  };
  return log;
}

function entry(
  sequence: number,
  chatId: string,
  toolCallId: string,
  serverName: string,
  toolName: string,
): ReturnType<AuditRecorder['recordDecision']> {
  return {
    sequence,
    time: new Date(0).toISOString(),
    kind: 'decision',
    chatId,
    exchangeId: null,
    toolCallId,
    serverName,
    toolName,
    definitionHash: null,
    decision: null,
    actor: null,
    decidedBy: null,
    reason: null,
    args: {},
    argsHash: null,
    editedArgs: null,
    editedArgsHash: null,
    outcome: null,
    durationMs: null,
    resultBytes: null,
    error: null,
    hash: '0'.repeat(64),
    previousHash: '0'.repeat(64),
  };
}
