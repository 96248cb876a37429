/**
 * Mutants the trust invariant must catch (docs/dev/testing.md, "The trust invariant"), run as sequences written out by
 * hand with the invariant's own steps and checks: the engine is changed in one place, as a bug would change it, and the
 * sequence that exercises that place must fail with the invariant's words; the same sequence on the real engine holds.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApprovalRule } from '../../shared/approval';
import type * as AnswerInboxModule from '../approval/answer-inbox';
import type { PolicyService } from '../approval/policy-service';
import type * as AppCallsModule from '../mcp/app-calls';
import type * as ModernTasksModule from '../mcp/modern-tasks';
import type * as SupervisorModule from '../mcp/server-supervisor';
import { AcceptanceQuestionStep } from './testing/invariant-acceptance';
import { checkInvariants, InvariantError, newCheckState } from './testing/invariant-checks';
import { invariantSteps, newInvariantModel, type InvariantWorld } from './testing/invariant-commands';
import { createHarness, emptyTally, type Harness } from './testing/invariant-harness';
import { startInvariantParts, type InvariantParts } from './testing/invariant-parts';
import { taskStep } from './testing/invariant-tasks';
import { modernTaskRuleMidway, modernTaskRunning, modernTaskStep } from './testing/invariant-tasks-2026';
import { TASK_TOOL } from './testing/recording-tasks';
import { modernTaskControl } from './testing/recording-tasks-2026';

/** Mutants made where the engine is built: switched on by a test, off otherwise. */
const mutants = vi.hoisted(() => ({ staleViewsUnchecked: false }));
vi.mock('../mcp/app-calls', async (importOriginal) => {
  const real = await importOriginal<typeof AppCallsModule>();
  return {
    ...real,
    // A view's calls no longer checked against what its server's name runs now (app-calls.ts `staleWhy`).
    createAppCalls: (dependencies: Parameters<typeof real.createAppCalls>[0]) =>
      real.createAppCalls(mutants.staleViewsUnchecked ? { ...dependencies, identityOf: undefined } : dependencies),
  };
});

/** The answers inbox's holder takes any answer a row holds: it no longer keeps to those another process may give. */
const relayMutant = vi.hoisted(() => ({ on: false }));
vi.mock('../approval/answer-inbox', async (importOriginal) => {
  const real = await importOriginal<typeof AnswerInboxModule>();
  return {
    ...real,
    relayProblem: (...args: Parameters<typeof real.relayProblem>) =>
      relayMutant.on ? undefined : real.relayProblem(...args),
  };
});

/**
 * A call of a server whose acceptance question is open does not wait for the answer (server-supervisor.ts
 * `callTool`): the server is started for it at once, as if the person had said yes.
 */
const skipWaitMutant = vi.hoisted(() => ({ on: false }));
vi.mock('../mcp/server-supervisor', async (importOriginal) => {
  const real = await importOriginal<typeof SupervisorModule>();
  return {
    ...real,
    createServerSupervisor: (deps: Parameters<typeof real.createServerSupervisor>[0]) => {
      if (!skipWaitMutant.on) return real.createServerSupervisor(deps);
      let goAhead = false;
      const supervisor: ReturnType<typeof real.createServerSupervisor> = real.createServerSupervisor({
        ...deps,
        accepted: () => goAhead || (deps.accepted?.() ?? true),
        afterAcceptance: (toolName, options) => {
          const waiting = deps.afterAcceptance?.(toolName, options);
          if (!waiting) return undefined;
          waiting.catch(() => undefined);
          goAhead = true;
          supervisor.start();
          return new Promise<void>((resolve, reject) => {
            const started = (turns: number): void => {
              if (supervisor.status().state === 'ready') resolve();
              else if (turns > 10_000) reject(new Error('never started'));
              else setImmediate(() => started(turns + 1));
            };
            started(0);
          });
        },
      });
      return supervisor;
    },
  };
});

/**
 * The raw request path of a 2026-07-28 task call sends its legs past the door (modern-tasks.ts: the port no longer
 * asks the call's door before `tools/call`, `tasks/get` or `tasks/update`), as a raw path built beside the SDK's
 * guarded one would if it forgot the door.
 */
const rawDoorMutant = vi.hoisted(() => ({ on: false }));
/** A follower whose legs after the first (`tasks/get`, the result) skip the door: only `tools/call` is checked. */
const followerLegMutant = vi.hoisted(() => ({ on: false }));
vi.mock('../mcp/modern-tasks', async (importOriginal) => {
  const real = await importOriginal<typeof ModernTasksModule>();
  return {
    ...real,
    createModernTasks: (session: Parameters<typeof real.createModernTasks>[0]) => {
      const tasks = real.createModernTasks(session);
      if (followerLegMutant.on)
        return {
          ...tasks,
          call: (...[toolName, args, options]: Parameters<typeof tasks.call>) => {
            let legs = 0;
            return tasks.call(toolName, args, {
              ...options,
              admit: () => {
                if (legs++ === 0) options.admit();
              },
            });
          },
        };
      if (!rawDoorMutant.on) return tasks;
      return {
        ...tasks,
        call: (...[toolName, args, options]: Parameters<typeof tasks.call>) =>
          tasks.call(toolName, args, { ...options, admit: () => undefined }),
      };
    },
  };
});

let parts: InvariantParts;
beforeAll(async () => {
  parts = await startInvariantParts();
});
afterAll(() => parts.close());

/** Runs the steps one by one as fast-check would, on a fresh harness; `mutate` changes the engine first. */
async function runSequence(
  steps: readonly fc.AsyncCommand<ReturnType<typeof newInvariantModel>, InvariantWorld>[],
  mutate?: (harness: Harness) => void,
): Promise<Harness> {
  const harness = await createHarness({
    servers: parts.servers,
    fake: parts.fake,
    managed: null,
    tally: emptyTally(),
    template: parts.template,
  });
  parts.model.callServersAs((name) => harness.roleNames.get(name) ?? name);
  mutate?.(harness);
  const world: InvariantWorld = {
    harness,
    model: parts.model,
    checks: newCheckState(),
    advanceTime: async () => {},
    nextRuleId: 1,
  };
  try {
    await checkInvariants(harness, world.checks);
    await fc.asyncModelRun(() => ({ model: newInvariantModel(), real: world }), steps);
    return harness;
  } finally {
    await harness.dispose();
  }
}

/**
 * A remembered allow rule that counts across identities: the engine keeps the rules remembered for a server when the
 * server is removed, and when another server is added under the name it freed (approval-services.ts `followServer`
 * drops them; policy-service.ts `removedFromPolicy`).
 */
function keepRememberedRulesAcrossIdentities(harness: Harness): void {
  const policy: PolicyService = harness.services().approvals.policy;
  const follow = policy.followServer.bind(policy);
  policy.followServer = (change) => {
    if (change.kind === 'renamed') return follow(change);
    const kept = policy
      .view()
      .policy.rules.filter(
        (rule: ApprovalRule) =>
          rule.effect === 'allow' && rule.server === change.name && rule.id.startsWith('inv-remembered-'),
      );
    const dropped = follow(change);
    if (kept.length > 0) policy.update({ rules: { add: kept } });
    return dropped;
  };
}

describe('the trust invariant catches', () => {
  // Files' write_file of `notes.txt` asks (no rule, no setting); the person allows it and remembers a rule for Files
  // that allows it for any path (the card's own suggestion keeps the call's nonce, which no later call repeats); Files is removed and a different server (Other, with the same tools) is added under the name it freed;
  // the model makes the very same call by that name.
  const sequence = () => [
    invariantSteps.send(0, [[{ tool: 0, value: 0 }]]),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'wide-rule' },
    ]),
    invariantSteps.server({ kind: 'remove' }),
    invariantSteps.server({ kind: 'add-other', name: 'Files' }),
    invariantSteps.send(0, [[{ tool: 0, value: 0 }]]),
  ];

  it('a remembered allow rule made for one server that still allows a call after its name points at another', async () => {
    let caught: unknown;
    try {
      await runSequence(sequence(), keepRememberedRulesAcrossIdentities);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a grant or setting made for another server allowed a call: Files\.write_file \{"path":"notes\.txt".* is Other, allowed by row \d+: Auto-approved by your rule #1: Files write_file when \/path matches \*\* \(remembered from an approval card\); nothing that allows was made for Other$/,
    );
  });

  it('and the same sequence on the real engine holds: the remembered rule went with Files, and Other is asked', async () => {
    const harness = await runSequence(sequence());
    // The first call ran for Files (allowed once and remembered); the second, Other's, waits for the person.
    expect(harness.runs.map((run) => run.label)).toEqual(['Files']);
    expect(harness.tally.remembered).toBe(1);
  });
});

/**
 * A server started before the person accepted what it runs: the fleet is told every server is accepted (as if
 * `server-fleet.ts` did not ask the server's `identityChanged` before a start), while the approval engine still knows.
 */
function startBeforeAccept(harness: Harness): void {
  const config = harness.services().mcpServers;
  const list = config.list.bind(config);
  config.list = () => list().map(({ identityChanged: _ignored, ...server }) => server);
}

describe('the trust invariant catches a server started before its identity is accepted', () => {
  // The server the model calls Files' tools by is pointed at another server (as a hand edit of settings.json would),
  // then accepted, then the model calls it.
  const sequence = () => [
    invariantSteps.server({ kind: 'repoint' }),
    invariantSteps.server({ kind: 'accept' }),
    invariantSteps.send(0, [[{ tool: 0, value: 0 }]]),
  ];

  it('a mutant that starts it at once', async () => {
    let caught: unknown;
    try {
      await runSequence(sequence(), startBeforeAccept);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a server whose identity is not accepted was started: Files \(it is Other, slot s\d+\) was started while \{"previous":".*\/Files","current":".*\/Other"\}$/,
    );
  });

  it('and the same sequence on the real engine holds: it starts once accepted', async () => {
    const harness = await runSequence(sequence());
    expect(harness.tally.repointed).toBe(1);
    expect(harness.tally.accepted).toBe(1);
    expect(harness.unacceptedStarts).toEqual([]);
  });
});

describe('a server pointed at another by a save of settings.json (the live watch reads it again)', () => {
  // The server the model calls Files' tools by is pointed at Other by a save of settings.json; the model calls it
  // (it must wait, not start), then the person accepts it and the model calls it again.
  const sequence = () => [
    invariantSteps.server({ kind: 'repoint-file' }),
    invariantSteps.send(0, [[{ tool: 0, value: 0 }]]),
    invariantSteps.server({ kind: 'accept' }),
    invariantSteps.send(0, [[{ tool: 0, value: 1 }]]),
  ];

  it('on the real engine is held until the person accepts it, and then starts', async () => {
    const harness = await runSequence(sequence());
    expect(harness.tally.repointedByFile).toBe(1);
    expect(harness.tally.accepted).toBe(1);
    expect(harness.unacceptedStarts).toEqual([]);
    expect(harness.services().mcp.server('Files').status.state).not.toBe('needs-acceptance');
  });
});

describe('the trust invariant catches a stale view whose call is not refused', () => {
  // Files' read_file (a tool with a view) is allowed once in chat 0; another server (Other, with the same tools) is
  // put under the name Files, and the view asks at once: refused as stale on the real engine. With the mutant it waits
  // for the person, and the step that asked fails (nothing has to allow it, and no run has to time out).
  const sequence = () => [
    invariantSteps.send(0, [[{ tool: 1, value: 0 }]]),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
    ]),
    invariantSteps.server({ kind: 'replace' }),
  ];

  it('a mutant that lets a stale view ask', async () => {
    mutants.staleViewsUnchecked = true;
    let caught: unknown;
    try {
      await runSequence(sequence());
    } catch (error) {
      caught = error;
    } finally {
      mutants.staleViewsUnchecked = false;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a stale view's call was not refused as stale: the view of Files in chat 0 \(shown for .*\/Files, the name now runs .*\/Other\) asked for \w+ \{.*"nonce":"app-\d+".*\}: it waits for the person$/,
    );
  });

  it('and the same sequence on the real engine holds: the view asked and was refused as stale', async () => {
    const harness = await runSequence(sequence());
    expect(harness.tally.appCallsAsked).toBeGreaterThan(0);
    expect(harness.tally.appCallsStale).toBe(harness.tally.appCallsAsked);
  });
});

describe('the trust invariant catches an answer from another process that gives more than the card', () => {
  // Files' read_file (a tool with a view) is allowed once in chat 0; its view asks for a call (after a stop), which is
  // denied on the card; it asks again, and the second answer comes from another process through the answers inbox:
  // "Allow for this chat", which only the card gives.
  const ask = { action: 'deny', edit: 'none', answer: 'send' } as const;
  const sequence = () => [
    invariantSteps.send(0, [[{ tool: 1, value: 0 }]]),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
    ]),
    invariantSteps.stop(1),
    invariantSteps.decideServerRequests([ask]),
    invariantSteps.stop(1),
    invariantSteps.decideServerRequests([{ ...ask, action: 'allow-chat' }]),
  ];

  it('a mutant whose holder applies "Allow for this chat" written to the inbox', async () => {
    relayMutant.on = true;
    let caught: unknown;
    try {
      await runSequence(sequence());
    } catch (error) {
      caught = error;
    } finally {
      relayMutant.on = false;
    }
    expect((caught as Error).message).toMatch(
      /^serverRequests\.decide from another process app call \{"action":"allow-chat"\} should have been refused, but was applied$/,
    );
  });

  it('and the same sequence on the real engine holds: the holder refuses it, and the call still waits', async () => {
    const harness = await runSequence(sequence());
    expect(harness.tally.appCallDecisions).toBe(1);
    expect(harness.tally.relayedRefused).toBe(1);
    expect(harness.log.join('\n')).toContain(
      'serverRequests.decide from another process app call {"action":"allow-chat"} → conflict: "Allow for this chat" is given on the card in the app, not from another process',
    );
  });
});

/**
 * A call of the 2026-07-28 stdio server (Term, recording-stdio-server.ts) let through without a decision recorded: the
 * gate answers "allow" for it without writing the allow row first (approval-gate.ts `evaluate`), as a bug in a path
 * taken only for one kind of session would.
 */
function allowStdioUnrecorded(harness: Harness): void {
  const gate = harness.services().approvals.gate;
  const evaluate = gate.evaluate.bind(gate);
  gate.evaluate = (context, call, tool) => {
    const result = evaluate(context, call, tool);
    return call.serverName === 'Term' && result.outcome === 'ask'
      ? { outcome: 'allow', decision: result.decision }
      : result;
  };
}

describe('the trust invariant covers the 2026-07-28 stdio server', () => {
  // The model calls Term's exec (tool 3): it asks, and the person allows it once.
  const sequence = () => [
    invariantSteps.send(0, [[{ tool: 3, value: 0 }]]),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
    ]),
  ];

  it('and catches a mutant that runs its call without an allow row', async () => {
    let caught: unknown;
    try {
      await runSequence(sequence(), allowStdioUnrecorded);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a call ran without an allow decision for its arguments committed before it: Term\.exec \{"command":"ls","nonce":"n\d+"\} \(during send\(chat 0, \[3:0\]\)\); \d+ rows were committed then$/,
    );
    // The count is not fixed: Term's run is recorded with the rows committed when the harness read it, up to a turn
    // after it ran, and on a busy machine a row may land in that turn (docs/dev/testing.md, "The trust invariant").
  });

  it('and the same sequence on the real engine holds: the call waits, is allowed, and runs on the stdio server', async () => {
    const harness = await runSequence(sequence());
    expect(harness.runs.map((run) => `${run.label}.${run.toolName}`)).toEqual(['Term.exec']);
    expect(harness.tally.stdioRuns).toBe(1);
  });
});

describe('the trust invariant follows what the stdio server is through its lifecycle', () => {
  // Term's exec asks; the person allows it once and remembers a rule for Term that allows it for any command; Term is
  // removed and TermOther (the same program with another argument: another identity) added under its name; the model
  // makes the very same call by that name.
  const sequence = () => [
    invariantSteps.send(0, [[{ tool: 3, value: 0 }]]),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'wide-rule' },
    ]),
    invariantSteps.term({ kind: 'readd', other: true }),
    invariantSteps.send(0, [[{ tool: 3, value: 0 }]]),
  ];

  it('and catches a remembered rule made for Term that allows a call of another stdio server under its name', async () => {
    let caught: unknown;
    try {
      await runSequence(sequence(), keepRememberedRulesAcrossIdentities);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a grant or setting made for another server allowed a call: Term\.exec \{"command":"ls".* is TermOther, allowed by row \d+: Auto-approved by your rule #1: Term exec when \/command matches \*\* \(remembered from an approval card\); nothing that allows was made for TermOther$/,
    );
  });

  it('and the same sequence on the real engine holds: the rule went with Term, and TermOther is asked', async () => {
    const harness = await runSequence(sequence());
    expect(harness.runs.map((run) => run.label)).toEqual(['Term']);
    expect(harness.tally.termLifecycle.readdedOther).toBe(1);
  });

  it('renamed, pointed at another identity, accepted: each call runs on what the person accepted under that name', async () => {
    const harness = await runSequence([
      invariantSteps.term({ kind: 'rename', to: 'Cmd' }),
      invariantSteps.send(0, [[{ tool: 3, value: 0 }]]),
      invariantSteps.approve(0, [
        { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
      ]),
      invariantSteps.term({ kind: 'repoint' }),
      invariantSteps.send(0, [[{ tool: 3, value: 1 }]]),
      invariantSteps.term({ kind: 'accept' }),
      invariantSteps.send(1, [[{ tool: 3, value: 2 }]]),
      invariantSteps.approve(1, [
        { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
      ]),
    ]);
    expect(harness.runs.map((run) => `${run.serverName}:${run.label}`)).toEqual(['Cmd:Term', 'Cmd:TermOther']);
    expect(harness.tally.termLifecycle).toMatchObject({ renames: 1, repointed: 1, accepted: 1 });
  });
});

describe("the trust invariant catches a call that does not wait for the CLI's acceptance question", () => {
  // A message whose reply calls Files' write_file; while the reply is on its way, Files is pointed at Other and the
  // chat asks the person whether to start it; approvals are off, so the call is allowed and must wait for the answer.
  const sequence = (answer: 'yes' | 'no' | 'changed') => [new AcceptanceQuestionStep({ chat: 0, value: 2, answer })];

  it('a mutant that starts the server for the call instead of waiting for the answer', async () => {
    let caught: unknown;
    skipWaitMutant.on = true;
    try {
      await runSequence(sequence('no'));
    } catch (error) {
      caught = error;
    } finally {
      skipWaitMutant.on = false;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a call ran on a server while the person was still asked whether to start it: Files ran write_file \{.*\} \(as Other\) \(it runs Other, the person accepted only Files\)$/,
    );
  });

  it.each(['yes', 'no', 'changed'] as const)(
    'and on the real engine the call waits, then runs after a yes and never after a no or a change (%s)',
    async (answer) => {
      const harness = await runSequence(sequence(answer));
      const { acceptance } = harness.tally;
      expect(acceptance).toMatchObject({ asked: 1, waited: 1 });
      if (answer === 'yes') expect(acceptance.ranAfterYes).toBe(1);
      if (answer === 'no') expect(acceptance.refusedAfterNo).toBe(1);
      if (answer === 'changed') expect(acceptance.refusedChanged).toBe(1);
      expect(harness.runs.filter((run) => run.label === 'Other').length).toBe(answer === 'yes' ? 1 : 0);
    },
  );
});

/**
 * A call that its server runs as an MCP task let through the gate without a decision recorded: the gate answers
 * "allow" for a tool that must run as a task without writing the allow row (approval-gate.ts `evaluate`), as a bug in
 * a path taken only for task calls would (docs/user/mcp-servers.md#tasks).
 */
function allowTaskCallsUnrecorded(harness: Harness): void {
  const gate = harness.services().approvals.gate;
  const evaluate = gate.evaluate.bind(gate);
  gate.evaluate = (context, call, tool) => {
    const result = evaluate(context, call, tool);
    return call.toolName === TASK_TOOL && result.outcome === 'ask'
      ? { outcome: 'allow', decision: result.decision }
      : result;
  };
}

/**
 * The person's Cancel of a task call that sends the call again (as a retry on cancel would): the task's `tools/call`
 * reaches the server a second time, with no decision of its own.
 */
function resendOnCancel(harness: Harness): void {
  const mcp = harness.services().mcp;
  const call = mcp.callTool.bind(mcp);
  const cancel = mcp.cancelTask.bind(mcp);
  const requests = new Map<string, Parameters<typeof call>[0]>();
  mcp.callTool = (request) => {
    if (request.toolCallId) requests.set(request.toolCallId, request);
    return call(request);
  };
  mcp.cancelTask = (toolCallId) => {
    const request = requests.get(toolCallId);
    const cancelled = cancel(toolCallId);
    if (request) void call({ ...request, toolCallId: `${toolCallId}-again`, onTask: undefined }).catch(() => {});
    return cancelled;
  };
}

describe('the trust invariant covers calls run as MCP tasks', () => {
  // The model calls Files' write_report (a task) of notes.txt: it asks; the step leaves it waiting, then the person
  // allows it once, and it is called again and allowed once in the step, its task held and cancelled.
  const sequence = () => [
    taskStep({ chat: 0, value: 0, setting: 'as-is', answer: false, then: 'finish' }),
    invariantSteps.approve(0, [
      { decision: 'TOOL_CALL_DECISION_ALLOW_ONCE', edit: null, reason: null, remember: 'none' },
    ]),
    taskStep({ chat: 0, value: 1, setting: 'as-is', answer: true, then: 'cancel' }),
    taskStep({ chat: 1, value: 6, setting: 'auto-approve', answer: false, then: 'stop' }),
    taskStep({ chat: 1, value: 0, setting: 'always-ask', answer: true, then: 'finish' }),
  ];

  it('and catches a mutant of the gate that creates the task without an allow row', async () => {
    let caught: unknown;
    try {
      await runSequence(sequence(), allowTaskCallsUnrecorded);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a call ran without an allow decision for its arguments committed before it: Files\.write_report \{"path":"notes\.txt","nonce":"t\d+"\} \(during task\(chat 0, write_report:0, then finish\)\); \d+ rows were committed then$/,
    );
  });

  it('and catches a mutant whose Cancel sends the call again', async () => {
    let caught: unknown;
    try {
      await runSequence(
        [taskStep({ chat: 0, value: 1, setting: 'as-is', answer: true, then: 'cancel' })],
        resendOnCancel,
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a task's cancel or result ran a tool: Files\.write_report \{"path":"docs\/readme\.md","nonce":"t\d+"\}$/,
    );
  });

  it('and the same sequence on the real engine holds: each task is created once allowed, cancelled, let go, finished', async () => {
    const harness = await runSequence(sequence());
    expect(harness.runs.filter((run) => !run.leg).map((run) => `${run.label}.${run.toolName}`)).toEqual([
      'Files.write_report',
      'Files.write_report',
      'Files.write_report',
      'Files.write_report',
    ]);
    expect(harness.tally.tasks).toEqual({ asked: 4, created: 3, cancelled: 1, completed: 1, detached: 1 });
  });
});

describe('the trust invariant covers tasks of a 2026-07-28 server', () => {
  // Shell's run of "shutdown" runs only as a task (recording-tasks-2026.ts), allowed by the tool's setting. In chat 0
  // it runs: declaring the extension from the first tools/call, its task followed with one tasks/get. Shell is
  // reconnected; in chat 1 the server holds its answer to the call while a deny rule on "shutdown" comes into force,
  // then lets it go: the task exists, and its first tasks/get meets the rule.
  const sequence = () => [modernTaskStep(0, false), invariantSteps.reconnect('Shell'), modernTaskStep(1, true)];

  it('and catches a mutant whose raw path sends its legs past the door', async () => {
    rawDoorMutant.on = true;
    let caught: unknown;
    try {
      await runSequence(sequence());
    } catch (error) {
      caught = error;
    } finally {
      rawDoorMutant.on = false;
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a deny rule in force matched a further leg of a call: Shell\.run \{"command":"shutdown","nonce":"[^"]+"\}.* matched shutdown/,
    );
  });

  it('and the same sequence on the real engine holds: each task runs once allowed, and the door keeps out the leg a rule came for', async () => {
    const { created, everHeld, refusals } = modernTaskControl;
    const harness = await runSequence(sequence());
    // Both answers were held (chat 1's while the rule came); no call was refused for want of the extension; chat 1's
    // task was never looked at: two runs, one leg (chat 0's).
    expect(modernTaskControl.everHeld - everHeld).toBe(2);
    expect(modernTaskControl.refusals - refusals).toBe(0);
    expect(harness.runs.filter((run) => run.label === 'Shell').map((run) => (run.leg ? 'leg' : 'run'))).toEqual([
      'run',
      'leg',
      'run',
    ]);
    expect(modernTaskControl.created - created).toBe(2);
  });

  // A task held running across steps: created and followed in chat 0, the reply stopped; then a deny rule on
  // "shutdown" comes into force while it runs.
  const midway = () => [modernTaskRunning(0), modernTaskRuleMidway(0)];

  it('and catches a mutant whose follower sends its legs past the door once the task exists', async () => {
    followerLegMutant.on = true;
    let caught: unknown;
    try {
      await runSequence(midway());
    } catch (error) {
      caught = error;
    } finally {
      followerLegMutant.on = false;
      modernTaskControl.finishRunning();
    }
    expect(caught).toBeInstanceOf(InvariantError);
    expect((caught as Error).message).toMatch(
      /^a deny rule in force matched a further leg of a call: Shell\.run \{"command":"shutdown","nonce":"[^"]+"\}.* matched shutdown/,
    );
  });

  it('and on the real engine a rule that comes while the task runs stops its next leg: cancelled, the call denied', async () => {
    const { created, cancels } = modernTaskControl;
    const harness = await runSequence(midway());
    const shell = harness.runs.filter((run) => run.label === 'Shell');
    expect(shell[0]?.leg).toBeFalsy();
    expect(shell.slice(1).length).toBeGreaterThan(0);
    expect(shell.slice(1).every((run) => run.leg && run.denyHits.length === 0)).toBe(true);
    expect(modernTaskControl.created - created).toBe(1);
    expect(modernTaskControl.cancels - cancels).toBe(1);
    expect(modernTaskControl.lastStatus()).toBe('cancelled');
  });

  it('every call declares the extension from the first: no refusal, one run and its leg each', async () => {
    const { created, refusals } = modernTaskControl;
    const harness = await runSequence([modernTaskStep(0, false), modernTaskStep(1, false)]);
    expect(modernTaskControl.refusals - refusals).toBe(0);
    expect(harness.runs.filter((run) => run.label === 'Shell').map((run) => (run.leg ? 'leg' : 'run'))).toEqual([
      'run',
      'leg',
      'run',
      'leg',
    ]);
    expect(modernTaskControl.created - created).toBe(2);
  });
});
