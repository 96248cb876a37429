import { randomUUID } from 'node:crypto';
import type { AuditRecorder } from '../audit/audit-log';
import { SERVER_REQUEST_NO_CHAT } from '../audit/audit-log';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import { SERVER_REQUEST_ACTION_WORDS } from '../../shared/decisions';
import type { SandboxWideningRequestView, ServerRequestDecision } from '../../shared/server-request-views';
import type { Database } from '../storage/database';
import {
  SandboxGrantSchema,
  type SandboxGrant,
  type SandboxWidening,
  type SandboxWideningRequestInput,
} from '../../shared/sandbox';
import type { SandboxProfileService } from './sandbox-profiles';

/**
 * Requests to widen a server's sandbox profile (docs/user/sandbox.md#widening): each waits in the one pending store
 * (`pending_requests`, kind `sandbox-widening`) until the person allows or denies it, like any other request. A
 * decision is a `decision` row (tool `sandbox/widen-<kind>`), and an allowed one also the `policy` row of the grant,
 * committed in one transaction with the claim of the request; the grant applies only after that commit. The
 * organisation's limits are checked when the request is made and again when it is allowed.
 */
export interface SandboxWideningService {
  /** Keeps a request waiting; the same grant already waiting for the server is returned, not asked twice. */
  request(input: SandboxWideningRequestInput): SandboxWidening;
  /** The requests that wait, oldest first. */
  waiting(): SandboxWidening[];
  get(id: string): SandboxWidening | undefined;
  /** Allows (the grant applies) or denies a waiting request; `invalid_input` once it was decided. */
  decide(id: string, decision: 'allow' | 'deny'): SandboxWidening;
  /**
   * The waiting requests as the `serverRequests.*` contract shows them: every one (undefined), the chat-less (null)
   * or one chat's.
   */
  views(chatId?: string | null): SandboxWideningRequestView[];
  /** A person's answer through `serverRequests.decide`: `allow-once` allows, `deny` denies; any other is refused. */
  answer(id: string, decision: ServerRequestDecision): { request: null };
}

/** The contract's view of a waiting request. */
export function wideningView(widening: SandboxWidening): SandboxWideningRequestView {
  return {
    id: widening.id,
    kind: 'sandbox-widening',
    serverName: widening.serverName,
    chatId: widening.chatId,
    createdAt: widening.createdAt,
    grant: widening.grant,
    description: widening.description,
    ...(widening.toolCallId ? { toolCallId: widening.toolCallId } : {}),
  };
}

interface Row {
  chat_id: string | null;
  request_id: string;
  request: string;
  created_at: number;
  status: SandboxWidening['status'];
}

interface Stored {
  serverName: string;
  grant: SandboxGrant;
  description: string;
  chatId: string | null;
  toolCallId?: string;
}

const KIND = "kind = 'sandbox-widening'";

export function createSandboxWideningService(deps: {
  db: Database;
  audit: AuditRecorder;
  profiles: SandboxProfileService;
  /** Where `serverRequests.onDidChange` goes: a request waiting, and one decided. */
  events?: EventHub | undefined;
  now?: () => number;
}): SandboxWideningService {
  const now = deps.now ?? Date.now;
  const insert = deps.db.prepare<[string | null, string, string, number]>(
    `INSERT INTO pending_requests (chat_id, request_id, kind, request, created_at) VALUES (?, ?, 'sandbox-widening', ?, ?)`,
  );
  const byId = deps.db.prepare<[string], Row>(`SELECT * FROM pending_requests WHERE request_id = ? AND ${KIND}`);
  const waiting = deps.db.prepare<[], Row>(
    `SELECT * FROM pending_requests WHERE status = 'pending' AND ${KIND} ORDER BY rowid`,
  );
  const claim = deps.db.prepare<[string, string, string]>(
    `UPDATE pending_requests SET status = ?, resolution = ? WHERE request_id = ? AND ${KIND} AND status = 'pending'`,
  );
  const chatExists = deps.db.prepare<[string], { found: number }>('SELECT 1 AS found FROM chats WHERE id = ?');

  const toView = (row: Row): SandboxWidening => {
    const stored = JSON.parse(row.request) as Stored;
    return {
      id: row.request_id,
      serverName: stored.serverName,
      grant: SandboxGrantSchema.parse(stored.grant),
      description: stored.description,
      chatId: row.chat_id,
      ...(stored.toolCallId ? { toolCallId: stored.toolCallId } : {}),
      createdAt: row.created_at,
      status: row.status,
    };
  };

  const service: SandboxWideningService = {
    request(input) {
      // Checked now, so that a request the organisation forbids is refused where it is made, not after waiting.
      const prepared = deps.profiles.prepareWiden(input.name, input.grant);
      if (input.chatId !== undefined && !chatExists.get(input.chatId))
        throw new WorkbenchError('not_found', `There is no chat "${input.chatId}".`);
      const same = service
        .waiting()
        .find(
          (widening) =>
            widening.serverName === prepared.name && JSON.stringify(widening.grant) === JSON.stringify(prepared.grant),
        );
      if (same) return same;
      const id = `widen-${randomUUID()}`;
      const stored: Stored = {
        serverName: prepared.name,
        grant: prepared.grant as SandboxGrant,
        description: deps.profiles.describe(prepared.name, prepared.grant),
        chatId: input.chatId ?? null,
        ...(input.toolCallId ? { toolCallId: input.toolCallId } : {}),
      };
      insert.run(input.chatId ?? null, id, JSON.stringify(stored), now());
      const waitingNow = toView(byId.get(id) as Row);
      deps.events?.emit('serverRequests.onDidChange', { kind: 'waiting', request: wideningView(waitingNow) });
      return waitingNow;
    },
    waiting: () => waiting.all().map(toView),
    get(id) {
      const row = byId.get(id);
      return row && toView(row);
    },
    decide(id, decision) {
      const widening = service.get(id);
      if (!widening) throw new WorkbenchError('not_found', `There is no sandbox widening request "${id}".`);
      if (widening.status !== 'pending')
        throw new WorkbenchError('invalid_input', `The sandbox widening request "${id}" was already decided.`);
      const outcome = decision === 'allow' ? ('allow_once' as const) : ('deny' as const);
      // The organisation's limits may have changed since the request: checked again before anything is recorded.
      const prepared = decision === 'allow' ? deps.profiles.prepareWiden(widening.serverName, widening.grant) : null;
      const record = {
        chatId: widening.chatId ?? SERVER_REQUEST_NO_CHAT,
        toolCallId: widening.id,
        serverName: widening.serverName,
        toolName: `sandbox/widen-${widening.grant.kind}`,
        decision: outcome,
        actor: 'user' as const,
        decidedBy: 'you',
        reason: `${decision === 'allow' ? 'Allowed' : 'Denied'}: ${widening.description}`,
        args: { grant: widening.grant, ...(widening.toolCallId ? { toolCallId: widening.toolCallId } : {}) },
      };
      deps.audit.recordDecisionsWith(
        [record],
        () => {
          if (claim.run(outcome, JSON.stringify({ decision }), id).changes === 0)
            throw new WorkbenchError(
              'invalid_input',
              `The sandbox widening request "${id}" was decided meanwhile; nothing was applied.`,
            );
        },
        prepared?.change ? [prepared.change] : [],
      );
      // After the commit: the grant applies only once its decision and policy rows are durable.
      prepared?.apply();
      deps.events?.emit('serverRequests.onDidChange', {
        kind: 'resolved',
        request: wideningView(widening),
        outcome: SERVER_REQUEST_ACTION_WORDS[decision === 'allow' ? 'allow-once' : 'deny'],
      });
      return service.get(id) as SandboxWidening;
    },
    views(chatId) {
      const all = service.waiting().map(wideningView);
      return chatId === undefined ? all : all.filter((view) => view.chatId === chatId);
    },
    answer(id, decision) {
      if (decision.action !== 'allow-once' && decision.action !== 'deny')
        throw new WorkbenchError(
          'invalid_input',
          `A sandbox widening request is answered with "allow-once" or "deny", not "${decision.action}".`,
          { id },
        );
      service.decide(id, decision.action === 'allow-once' ? 'allow' : 'deny');
      return { request: null };
    },
  };
  return service;
}
