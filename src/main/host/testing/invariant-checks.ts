/**
 * The promise of AI Workbench as checks over what a run of the invariant test can observe (docs/dev/architecture.md,
 * the tool loop and the decision order): what the servers ran, the audit log, and what the contract shows.
 * Each check throws an Error naming the invariant and the evidence.
 */
import type { ToolCallApproval } from '../../../shared/approval';
import { APP_CALL_PREFIX } from '../../../shared/mcp-apps';
import type { AuditEntry } from '../../../shared/audit';
import type { ChatMessage, ToolCallRecord } from '../../../shared/messages';
import { ruleOfId } from './invariant-catalogue';
import { unacceptedBinding, type Harness, type RecordedElicitation, type RecordedRun } from './invariant-harness';

const ALLOW_DECISIONS = new Set(['auto_allow', 'session_grant', 'allow_once', 'allow_session']);
const USER_DECISIONS: Record<ToolCallApproval['decision'], string> = {
  TOOL_CALL_DECISION_ALLOW_ONCE: 'allow_once',
  TOOL_CALL_DECISION_ALLOW_SESSION: 'allow_session',
  TOOL_CALL_DECISION_DENY: 'deny',
};

/** State the checks carry from one step to the next. */
export interface CheckState {
  /** Runs already matched to their allow row. */
  checkedRuns: number;
  /** Tool call ids whose allow row already justified a run. */
  readonly spent: Set<string>;
  /** Sampling requests and answers already matched to their allow rows, and the requests' rows that did. */
  checkedSamplings: number;
  checkedAnswers: number;
  readonly spentSamplings: Set<string>;
  /** Elicitation answers already checked, and the accept rows that justified one. */
  readonly checkedElicitations: Set<RecordedElicitation>;
  readonly spentElicitations: Set<string>;
  /** The audit sequence up to which server requests' decisions were counted in the tally. */
  countedRequestRows: number;
}

export const newCheckState = (): CheckState => ({
  checkedRuns: 0,
  spent: new Set(),
  checkedSamplings: 0,
  checkedAnswers: 0,
  spentSamplings: new Set(),
  checkedElicitations: new Set(),
  spentElicitations: new Set(),
  countedRequestRows: 0,
});

/** Counts how the engine answered server requests (sampling, elicitation): allowed, denied, timed out. */
function tallyServerRequests(harness: Harness, rows: readonly AuditEntry[], state: CheckState): void {
  for (const row of rows) {
    if (row.sequence <= state.countedRequestRows) continue;
    state.countedRequestRows = row.sequence;
    if (row.kind !== 'sampling' && row.kind !== 'elicitation') continue;
    if (row.decision === 'timeout') harness.tally.serverRequestTimeouts += 1;
    else if (row.decision === 'deny' || row.decision === 'auto_deny') harness.tally.serverRequestsDenied += 1;
    else if (ALLOW_DECISIONS.has(row.decision ?? '')) harness.tally.serverRequestsAllowed += 1;
  }
}

export class InvariantError extends Error {
  constructor(invariant: string, detail: string) {
    super(`${invariant}: ${detail}`);
    this.name = 'InvariantError';
  }
}

async function auditRows(harness: Harness): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await harness.ok('audit.query', { limit: 500, ...(cursor ? { cursor } : {}) });
    rows.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows.sort((a, b) => a.sequence - b.sequence);
}

/** The words of what allows one server by name (decision-reasons.ts): a chat grant, a tool or server setting, trust. */
const NAME_BOUND_SOURCE =
  /^Allowed for this chat|^Auto-approved: tool setting|^Auto-approved: server setting|you trust the annotations of/;

/**
 * Whether a remembered allow rule decided the call ("Auto-approved by your rule #N" where rule N is one the person
 * remembered from a card, not one the test wrote from the catalogue): such a rule is made for the server it was
 * remembered for (docs/user/approvals.md, "A server's identity").
 */
export function byRememberedRule(harness: Harness, decidedBy: string): boolean {
  const number = /^Auto-approved by your rule #(\d+)/.exec(decidedBy)?.[1];
  const rule = number === undefined ? undefined : harness.userRules()[Number(number) - 1];
  return rule !== undefined && ruleOfId(rule.id) === undefined;
}

const describeRun = (run: RecordedRun): string =>
  `${run.serverName}.${run.toolName} ${JSON.stringify(run.args)} (during ${run.step})`;

/**
 * (1) every call that ran had an allow decision row, for exactly these arguments, committed before the server
 * received it, and no later decision about that call (a deny, a timeout) came before it ran; each allow row
 * justifies one run; (2) no deny rule in force when it ran matched its arguments.
 */
function checkRuns(harness: Harness, rows: readonly AuditEntry[], state: CheckState): void {
  for (const run of harness.runs.slice(state.checkedRuns)) {
    if (run.denyHits.length > 0) {
      throw new InvariantError(
        run.leg
          ? 'a deny rule in force matched a further leg of a call'
          : 'a deny rule in force matched a call that ran',
        `${describeRun(run)} matched ${run.denyHits.join(', ')}`,
      );
    }
    // A further leg was allowed with its call (checked when that ran); it passed the door again (call-door.ts).
    if (run.leg) {
      state.checkedRuns += 1;
      continue;
    }
    const hash = harness.argsHash(run.args);
    // The allow row names the server as it was called then: that name must have meant this very server (its
    // identity) both when the call was made (its first row) and when it was allowed.
    const sameServer = (row: AuditEntry): boolean => {
      const first = rows.find((candidate) => candidate.toolCallId === row.toolCallId) ?? row;
      return (
        harness.labelAt(row.serverName, row.sequence) === run.label &&
        harness.labelAt(row.serverName, first.sequence) === run.label
      );
    };
    const allowRow = rows.find(
      (row) =>
        row.kind === 'decision' &&
        row.sequence <= run.committedSequence &&
        ALLOW_DECISIONS.has(row.decision ?? '') &&
        sameServer(row) &&
        row.toolName === run.toolName &&
        (row.editedArgsHash ?? row.argsHash) === hash &&
        !state.spent.has(row.toolCallId),
    );
    if (!allowRow) {
      throw new InvariantError(
        'a call ran without an allow decision for its arguments committed before it',
        `${describeRun(run)}; ${run.committedSequence} rows were committed then`,
      );
    }
    const last = rows
      .filter(
        (row) =>
          row.kind === 'decision' && row.toolCallId === allowRow.toolCallId && row.sequence <= run.committedSequence,
      )
      .at(-1);
    if (last && !ALLOW_DECISIONS.has(last.decision ?? '')) {
      throw new InvariantError(
        'a call ran after its last decision said no',
        `${describeRun(run)}: row ${last.sequence} says ${last.decision} (${last.decidedBy})`,
      );
    }
    // No grant or setting made for one server allows a call of another: what allowed it must have been made for it.
    if (
      (allowRow.decision === 'auto_allow' || allowRow.decision === 'session_grant') &&
      (NAME_BOUND_SOURCE.test(allowRow.decidedBy ?? '') || byRememberedRule(harness, allowRow.decidedBy ?? '')) &&
      !harness.madeAllows.some((made) => made.label === run.label)
    ) {
      throw new InvariantError(
        'a grant or setting made for another server allowed a call',
        `${describeRun(run)} is ${run.label}, allowed by row ${allowRow.sequence}: ${allowRow.decidedBy}; nothing that allows was made for ${run.label}`,
      );
    }
    // A view's call ran on the server the view was shown for: the one its call's name meant when that was made (its
    // first row; a rename while it waited leaves the last server that had the name).
    const viewCallId = harness.appViewOf.get(String(run.args['nonce']));
    const viewRow = viewCallId === undefined ? undefined : rows.find((row) => row.toolCallId === viewCallId);
    if (viewRow) {
      const shownFor = harness.labelMeant(viewRow.serverName, viewRow.sequence);
      if (shownFor !== run.label)
        throw new InvariantError(
          'an app call from a stale view ran',
          `${describeRun(run)} is ${run.label}; its view was shown for ${shownFor ?? 'no server'} (row ${viewRow.sequence})`,
        );
    }
    state.spent.add(allowRow.toolCallId);
    state.checkedRuns += 1;
  }
}

/** The first message's text a sampling row allowed: the edit's when the person edited it. */
const sampledText = (row: AuditEntry): string | undefined =>
  ((row.editedArgs ?? row.args) as { messages?: { text?: string }[] } | null)?.messages?.[0]?.text;
/** The answer text a sampling answer row let go back: the edit's when the person edited it. */
const answeredText = (row: AuditEntry): string | undefined =>
  ((row.editedArgs ?? row.args) as { text?: string } | null)?.text;

/** A sampling allow row of one stage (its tool name) for the server, committed by then, that `fits`. */
function samplingAllowRow(
  rows: readonly AuditEntry[],
  toolName: 'sampling/createMessage' | 'sampling/answer',
  seen: { serverName: string; committedSequence: number },
  fits: (row: AuditEntry) => boolean,
): AuditEntry | undefined {
  return rows.find(
    (row) =>
      row.kind === 'sampling' &&
      row.toolName === toolName &&
      row.serverName === seen.serverName &&
      row.sequence <= seen.committedSequence &&
      ALLOW_DECISIONS.has(row.decision ?? '') &&
      fits(row),
  );
}

/**
 * (6) a server's sampling request reached the model only with an allow row for exactly what the model got,
 * committed before (each row allows one request), with no deny rule in force matching it and the server's sampling
 * not set to deny; an answer reached the server only with an allow row for exactly that text committed before.
 */
function checkSampling(harness: Harness, rows: readonly AuditEntry[], state: CheckState): void {
  for (const sampling of harness.samplings.slice(state.checkedSamplings)) {
    const text = sampling.args.messages[0]?.text;
    const where = `${sampling.serverName}'s request ${JSON.stringify(text)} (during ${sampling.step}; ${sampling.committedSequence} rows committed then)`;
    if (sampling.denyHits.length > 0)
      throw new InvariantError(
        'a deny rule in force matched a sampling request that reached the model',
        `${where} matched ${sampling.denyHits.join(', ')}`,
      );
    if (sampling.setting === 'deny')
      throw new InvariantError(
        "a sampling request reached the model while the server's sampling was set to deny",
        where,
      );
    const allowRow = samplingAllowRow(
      rows,
      'sampling/createMessage',
      sampling,
      (row) => sampledText(row) === text && !state.spentSamplings.has(row.toolCallId),
    );
    if (!allowRow)
      throw new InvariantError(
        'a sampling request reached the model without an allow row for it committed before',
        where,
      );
    state.spentSamplings.add(allowRow.toolCallId);
    state.checkedSamplings += 1;
  }
  for (const answer of harness.samplingAnswers.slice(state.checkedAnswers)) {
    const allowRow = samplingAllowRow(rows, 'sampling/answer', answer, (row) => answeredText(row) === answer.text);
    if (!allowRow) {
      throw new InvariantError(
        'a sampling answer reached the server without an allow row for it committed before',
        `${answer.serverName} got ${JSON.stringify(answer.text)} (during ${answer.step}; ${answer.committedSequence} rows committed then)`,
      );
    }
    state.checkedAnswers += 1;
  }
}

/**
 * (7) what the person typed into a server's elicitation form reached the server only with the person's accept row
 * (actor user, allow_once) for exactly that content, committed before, one row per answer; an elicitation asked
 * while a deny rule on it was in force never came back accepted; a declined or cancelled one carried nothing.
 */
function checkElicitation(harness: Harness, rows: readonly AuditEntry[], state: CheckState): void {
  for (const elicitation of harness.elicitations) {
    const answer = elicitation.answer;
    if (!answer || state.checkedElicitations.has(elicitation)) continue;
    const where = `${elicitation.serverName}'s elicitation ${elicitation.nonce} answered ${answer.action} ${JSON.stringify(answer.content ?? null)} (during ${answer.step}; ${answer.committedSequence} rows committed then)`;
    if (answer.action !== 'accept') {
      if (answer.content !== undefined)
        throw new InvariantError('an elicitation that was not accepted carried content to the server', where);
    } else {
      if (elicitation.denyHits.length > 0)
        throw new InvariantError(
          'an elicitation a deny rule in force matched came back accepted',
          `${where} matched ${elicitation.denyHits.join(', ')}`,
        );
      const row = rows.find(
        (candidate) =>
          candidate.kind === 'elicitation' &&
          candidate.serverName === elicitation.serverName &&
          candidate.actor === 'user' &&
          candidate.decision === 'allow_once' &&
          candidate.sequence <= answer.committedSequence &&
          !state.spentElicitations.has(candidate.toolCallId) &&
          JSON.stringify(candidate.editedArgs) === JSON.stringify(answer.content ?? {}) &&
          JSON.stringify(candidate.args).includes(elicitation.nonce),
      );
      if (!row)
        throw new InvariantError(
          "what a person typed reached the server without the person's accept row for exactly it committed before",
          where,
        );
      state.spentElicitations.add(row.toolCallId);
    }
    state.checkedElicitations.add(elicitation);
  }
}

interface ChatView {
  chatId: string;
  messages: ChatMessage[];
  records: Map<string, ToolCallRecord>;
}

/**
 * (3) no decision row for a decision that did not apply: every person's row answers a call in an approval message
 * the chat kept (same decision, same edit), one row per answer and one answer per row; a timeout or stop row
 * belongs to a call that ended that way; a policy row belongs to a call the model made.
 */
function checkRowsApplied(
  rows: readonly AuditEntry[],
  chats: readonly ChatView[],
  argumentsHash: (args: Record<string, unknown>) => string,
): void {
  const answers = new Map<string, ToolCallApproval>();
  const records = new Map<string, ToolCallRecord>();
  for (const chat of chats) {
    for (const [id, record] of chat.records) records.set(id, record);
    for (const message of chat.messages) {
      if (message.role !== 'approval') continue;
      for (const answer of message.toolCallApprovals) {
        if (answers.has(answer.toolCallId))
          throw new InvariantError('a call was answered twice', `tool call ${answer.toolCallId}`);
        answers.set(answer.toolCallId, answer);
      }
    }
  }
  const userRows = new Set<string>();
  for (const row of rows) {
    if (row.kind !== 'decision') continue;
    // A view's requests have no approval message: checkAppRows holds them to the answers the person gave.
    if (row.toolCallId.startsWith(APP_CALL_PREFIX)) continue;
    // A sandbox widening's decision and a block are not a tool call's: check (8) holds them to their grants.
    if (row.toolName.startsWith('sandbox/')) continue;
    const where = `row ${row.sequence} (${row.decision} by ${row.actor}: ${row.decidedBy}) for ${row.serverName}.${row.toolName} ${row.toolCallId}`;
    if (row.actor === 'user') {
      const answer = answers.get(row.toolCallId);
      if (!answer) throw new InvariantError("a person's decision row has no approval message that applied it", where);
      if (userRows.has(row.toolCallId)) throw new InvariantError("a person's decision was recorded twice", where);
      userRows.add(row.toolCallId);
      if (USER_DECISIONS[answer.decision] !== row.decision) {
        throw new InvariantError(
          "a person's decision row differs from the answer applied",
          `${where}; the answer was ${answer.decision}`,
        );
      }
      const editedHash = answer.editedArgs === undefined ? null : argumentsHash(answer.editedArgs);
      if (row.editedArgsHash !== editedHash)
        throw new InvariantError("a person's decision row records other edits than the answer applied", where);
      const record = records.get(row.toolCallId);
      const shown = record?.decision;
      // What the chat shows: the person's decision, or a deny rule that stopped the allowed call when it was about to run.
      const applied =
        row.decision === 'deny'
          ? record?.status === 'denied' && shown?.actor === 'user'
          : (shown?.outcome === 'allow' && shown.actor === 'user') ||
            (record?.status === 'denied' && shown?.actor === 'policy');
      if (!applied)
        throw new InvariantError(
          "a person's decision row for a call the chat shows otherwise",
          `${where}; the call shows ${record?.status} ${JSON.stringify(shown)}`,
        );
      continue;
    }
    const record = records.get(row.toolCallId);
    if (!record) throw new InvariantError('a decision row names a call no chat shows', where);
    if ((row.decision === 'timeout' || row.decision === 'cancelled') && record.status !== row.decision) {
      throw new InvariantError(
        'a timeout or stop row for a call that did not end that way',
        `${where}; the call shows ${record.status}`,
      );
    }
    if (row.decision === 'auto_deny' && record.status !== 'denied') {
      throw new InvariantError(
        'a policy deny row for a call the chat does not show as denied',
        `${where}; the call shows ${record.status}`,
      );
    }
  }
  for (const id of answers.keys()) {
    if (!userRows.has(id)) throw new InvariantError('an applied answer has no decision row', `tool call ${id}`);
  }
}

const APP_ANSWER_DECISIONS: Record<string, string> = {
  'allow-once': 'allow_once',
  'allow-chat': 'allow_session',
  deny: 'deny',
};

/**
 * (3b) a person's decision about a tool call a view asked for is the answer the person gave, recorded once, and every
 * answer applied has its row; a call the app asked for is never decided for the person by anyone else.
 */
function checkAppRows(harness: Harness, rows: readonly AuditEntry[]): void {
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.kind !== 'decision' || !row.toolCallId.startsWith(APP_CALL_PREFIX)) continue;
    const where = `row ${row.sequence} (${row.decision} by ${row.actor}: ${row.decidedBy}) for ${row.serverName}.${row.toolName} ${row.toolCallId}`;
    // The door's own row (a deny rule when it was about to run) names the rule; every other row names the app.
    if (!row.decidedBy?.includes('requested by the app of') && !row.decidedBy?.includes('(checked when the call'))
      throw new InvariantError("a view's request row does not say the app asked", where);
    if (row.actor !== 'user') continue;
    const answer = harness.appAnswers.get(row.toolCallId);
    if (answer === undefined)
      throw new InvariantError("a person's decision row about an app's call nobody answered", where);
    if (seen.has(row.toolCallId))
      throw new InvariantError("a person's decision about an app's call was recorded twice", where);
    seen.add(row.toolCallId);
    if (APP_ANSWER_DECISIONS[answer] !== row.decision)
      throw new InvariantError(
        "a person's decision row about an app's call differs from the answer",
        `${where}; the answer was ${answer}`,
      );
  }
  for (const id of harness.appAnswers.keys())
    if (!seen.has(id)) throw new InvariantError("an answer to an app's call has no decision row", id);
}

/** (5) the calls that wait in a chat are exactly the ones it shows on its last reply, and the chat says it waits. */
async function checkPendingShown(harness: Harness, chat: ChatView): Promise<void> {
  const waiting = (await harness.ok('approvals.pending', { chatId: chat.chatId })).approvals
    .map((approval) => approval.request.toolCallId)
    .sort();
  const lastReply = chat.messages.findLast((message) => message.role === 'assistant');
  const shown = (lastReply?.role === 'assistant' ? (lastReply.reply.pendingToolCalls ?? []) : [])
    .map((request) => request.toolCallId)
    .sort();
  if (JSON.stringify(waiting) !== JSON.stringify(shown)) {
    throw new InvariantError(
      'the calls waiting in a chat differ from the ones it shows',
      `chat ${chat.chatId}: waiting ${waiting.join(', ') || 'none'}, shown ${shown.join(', ') || 'none'}`,
    );
  }
  const { activity } = await harness.ok('chat.messages', { chatId: chat.chatId, limit: 1 });
  const expected = waiting.length > 0 ? 'waiting-approval' : 'idle';
  // A tool call still runs while its server's request (sampling) waits for the person: the chat shows that request.
  const serverAsks = (await harness.ok('serverRequests.list', {})).requests.some(
    (request) => request.chatId === chat.chatId || request.chatId === null,
  );
  if (activity.status !== expected && !(serverAsks && activity.status === 'running-tools')) {
    throw new InvariantError(
      'a settled chat says it is doing something else',
      `chat ${chat.chatId} is ${activity.status} with ${waiting.length} calls waiting`,
    );
  }
}

async function chatView(harness: Harness, chatId: string): Promise<ChatView> {
  const { messages } = await harness.ok('chat.messages', { chatId });
  const records = new Map<string, ToolCallRecord>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const turn of message.reply.turns)
      for (const record of turn.toolCalls ?? []) records.set(record.toolCallId, record);
  }
  return { chatId, messages, records };
}

/**
 * (9) No process of an unaccepted identity runs (docs/user/approvals.md, "A server's identity"): the recording servers
 * saw no connection opened while what the server runs was not accepted, and no such server is running now.
 */
function checkNothingUnacceptedRuns(harness: Harness): void {
  if (harness.unacceptedStarts.length > 0)
    throw new InvariantError(
      'a server whose identity is not accepted was started',
      harness.unacceptedStarts.join('; '),
    );
  const { mcpServers, mcp } = harness.services();
  for (const [name, facts] of mcpServers.facts()) {
    if (facts.identityChanged === undefined) continue;
    const { state } = mcp.server(name).status;
    if (state === 'ready' || state === 'starting' || state === 'restarting')
      throw new InvariantError(
        'a server whose identity is not accepted is running',
        `${name} is ${state} while ${JSON.stringify(facts.identityChanged)}`,
      );
  }
  // The same by the model's own record of what the person accepted (a save the engine took as accepted).
  for (const [name, binding] of harness.bindings) {
    if (!unacceptedBinding(binding)) continue;
    const { state } = mcp.server(name).status;
    if (state === 'ready' || state === 'starting' || state === 'restarting')
      throw new InvariantError(
        'a server whose identity is not accepted is running',
        `${name} is ${state} while it runs ${binding.label} and the person accepted only ${binding.acceptedLabel as string}`,
      );
  }
}

/** Every invariant, after a step that left every chat settled. */
export async function checkInvariants(harness: Harness, state: CheckState): Promise<void> {
  if (harness.internalErrors.length > 0) {
    throw new InvariantError('an internal error nobody was told about', harness.internalErrors.map(String).join('; '));
  }
  checkNothingUnacceptedRuns(harness);
  const rows = await auditRows(harness);
  checkRuns(harness, rows, state);
  checkSampling(harness, rows, state);
  tallyServerRequests(harness, rows, state);
  checkElicitation(harness, rows, state);
  const chats = await Promise.all(harness.chats.map((chatId) => chatView(harness, chatId)));
  checkRowsApplied(rows, chats, (args) => harness.argsHash(args));
  checkAppRows(harness, rows);
  // (8) the contained probe read a file only while the audit log granted it, and every grant in force was allowed.
  try {
    await harness.sandboxProbe?.check();
  } catch (error) {
    throw new InvariantError('a sandbox access or grant that was not allowed', (error as Error).message);
  }
  // (4) the log verifies.
  const verified = await harness.ok('audit.verify');
  if (!verified.ok)
    throw new InvariantError(
      'audit verify failed',
      `${verified.problem.kind} at row ${verified.problem.sequence}: ${verified.problem.message}`,
    );
  if (verified.rowCount !== rows.length)
    throw new InvariantError(
      'audit verify checked another number of rows than the log shows',
      `${verified.rowCount} vs ${rows.length}`,
    );
  for (const chat of chats) await checkPendingShown(harness, chat);
}
