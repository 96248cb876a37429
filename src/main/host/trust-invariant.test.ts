/**
 * The trust invariant (docs/dev/testing.md#the-trust-invariant): random sequences of what people, the organisation, the
 * model and the clock do, driven through the contract against the real services (real SQLite, real MCP over HTTP and
 * over stdio, the fake LLM server speaking OpenAI's wire format), and after EVERY step the promise is checked: 1. every call a server
 * ran had an allow decision for exactly its arguments in the audit log, committed before the server received it; 2. no
 * deny rule in force when it ran (the organisation's or the person's) matched its arguments; 3. no decision row exists
 * for a decision that did not apply; 4. `audit verify` is OK; 5. no call waits in a chat that does not show it, and a
 * chat with waiting calls says so; 6. a server's sampling request reached the model only with an allow row committed
 * before, no deny rule in force matching it and the server's sampling not set to deny; its answer reached the server
 * only once allowed; 7. what a person typed into a server's elicitation form reached the server only with the person's
 * accept row for exactly that content committed before, and never when a deny rule on the server's elicitation was in
 * force; 8. the contained probe server read a file only while the audit log granted it (widened through the engine,
 * by an allow decision of its widening request), and every grant in force was so allowed (testing/invariant-sandbox.ts;
 * only where a sandbox runs). Approvals are also pressed on the desktop notification (its Allow once / Deny, Electron's
 * Notification stood in), and a press on a notification whose call was already decided must be refused by the engine.
 * `npm test` runs a fixed seed; INVARIANT_RUNS, INVARIANT_SEED and INVARIANT_STEPS run it longer locally,
 * INVARIANT_SHRINK=1 shrinks a failure to its smallest sequence, INVARIANT_DEBUG=1 prints every sequence's steps
 * (=2 also names each step as it starts, for a run that hangs).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PolicyExplanation } from '../../shared/approval';
import { sandboxAvailability } from '../mcp/sandbox/bwrap';
import { COMMANDS, PATHS, ruleDraft, TOOLS, USER_RULES } from './testing/invariant-catalogue';
import { checkInvariants, newCheckState } from './testing/invariant-checks';
import {
  IdentityChange,
  identityPlanArb,
  invariantCommands,
  managedPolicyArb,
  newInvariantModel,
  sandboxPlanArb,
  SandboxChange,
  stdioPlanArb,
  stdioStep,
  type InvariantWorld,
} from './testing/invariant-commands';
import { createHarness, emptyTally, type Harness } from './testing/invariant-harness';
import { acceptSuggestionArb } from './testing/invariant-suggestions';
import { acceptancePlanArb, AcceptanceQuestionStep } from './testing/invariant-acceptance';
import { startInvariantParts, type InvariantParts } from './testing/invariant-parts';
import { taskPlanArb, taskStep, watchKeptTasks } from './testing/invariant-tasks';
import { modernTaskControl } from './testing/recording-tasks-2026';
import { modernKeptPlanArb, modernTaskKept } from './testing/invariant-tasks-2026';

const RUNS = Number(process.env['INVARIANT_RUNS'] ?? 200);
const SEED = Number(process.env['INVARIANT_SEED'] ?? 20261123);
const STEPS = Number(process.env['INVARIANT_STEPS'] ?? 14);

let parts: InvariantParts;
beforeAll(async () => {
  parts = await startInvariantParts();
});
afterAll(() => parts.close());

describe('the catalogue of the invariant test', () => {
  it("means by each rule what the pipeline's own matching means", async () => {
    const harness = await createHarness({
      servers: parts.servers,
      fake: parts.fake,
      managed: null,
      tally: emptyTally(),
      template: parts.template,
    });
    try {
      for (const rule of USER_RULES) {
        const view = await harness.ok('policy.update', {
          rules: {
            remove: harness.userRules().map((old) => old.id),
            add: [ruleDraft(rule.key, 'deny', `${rule.key}--1`)],
          },
        });
        harness.noteView(view);
        for (const tool of TOOLS) {
          for (const value of tool.field === 'path' ? PATHS : COMMANDS) {
            const args = { [tool.field]: value, nonce: 'n' };
            const explained: PolicyExplanation = await harness.ok('policy.explain', {
              server: tool.serverName,
              tool: tool.name,
              args,
            });
            expect({ rule: rule.key, tool: tool.name, value, denied: explained.outcome === 'deny' }).toEqual({
              rule: rule.key,
              tool: tool.name,
              value,
              denied: rule.matches(tool.serverName, tool.name, args),
            });
          }
        }
      }
    } finally {
      await harness.dispose();
    }
  });
});

describe('the trust invariant', () => {
  it(
    `holds over ${RUNS} random sequences of up to ${STEPS} steps (seed ${SEED})`,
    { timeout: Math.max(120_000, RUNS * 3_000) },
    async () => {
      const tally = emptyTally();
      const modernTasksBefore = modernTaskControl.created;
      let sequences = 0;
      let failingLog: string[] = [];
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      try {
        await fc.assert(
          fc.asyncProperty(
            managedPolicyArb,
            invariantCommands(STEPS, [acceptSuggestionArb]),
            sandboxPlanArb,
            identityPlanArb,
            stdioPlanArb,
            acceptancePlanArb,
            taskPlanArb,
            modernKeptPlanArb,
            async (managed, commands, sandboxPlan, identityPlan, stdioPlan, acceptancePlan, taskPlan, modernKept) => {
              sequences += 1;
              const harness: Harness = await createHarness({
                servers: parts.servers,
                fake: parts.fake,
                managed,
                tally,
                template: parts.template,
                runDueTimers: () => vi.advanceTimersByTime(0),
              });
              parts.model.callServersAs((name) => harness.roleNames.get(name) ?? name);
              const world: InvariantWorld = {
                harness,
                model: parts.model,
                checks: newCheckState(),
                advanceTime: async (ms) => {
                  await vi.advanceTimersByTimeAsync(ms);
                },
                nextRuleId: 1,
              };
              // The sandbox steps planned apart, each before the command at its position (sandboxPlanArb).
              let position = 0;
              world.between = async (state) => {
                // The tasks kept running from earlier steps: a deny rule in force now stops them (invariant-tasks.ts).
                await watchKeptTasks(world, false);
                for (const planned of sandboxPlan)
                  if (planned.at === position) await new SandboxChange(planned.step).run(state, world);
                // What a server runs changed without acceptance, and accepted (identityPlanArb).
                for (const planned of identityPlan)
                  if (planned.at === position) await new IdentityChange(planned.change).run(state, world);
                // Calls of the 2026-07-28 stdio server, and its restarts (stdioPlanArb).
                for (const planned of stdioPlan)
                  if (planned.at === position) await stdioStep(planned.step).run(state, world);
                // A call made while the CLI's acceptance question is open, and the answer (acceptancePlanArb).
                for (const planned of acceptancePlan)
                  if (planned.at === position) await new AcceptanceQuestionStep(planned.pick).run(state, world);
                // Calls of Files' tool that runs as an MCP task (taskPlanArb).
                for (const planned of taskPlan)
                  if (planned.at === position) await taskStep(planned.step).run(state, world);
                // Shell's task of the 2026-07-28 extension kept running across the next steps (modernKeptPlanArb).
                for (const planned of modernKept)
                  if (planned.at === position) await modernTaskKept(planned.chat, planned.ruleLater).run(state, world);
                position += 1;
              };
              try {
                await checkInvariants(harness, world.checks);
                await fc.asyncModelRun(() => ({ model: newInvariantModel(), real: world }), commands);
                // The tasks still kept running are let go (or stopped by a deny rule in force), and checked once more.
                await watchKeptTasks(world, true);
                await checkInvariants(harness, world.checks);
              } catch (error) {
                // While shrinking, the last sequence that failed is the smallest counterexample so far.
                failingLog = harness.log;
                throw error;
              } finally {
                if (process.env['INVARIANT_DEBUG']) console.log(harness.log.join('\n'));
                await harness.dispose();
              }
            },
          ),
          { seed: SEED, numRuns: RUNS, endOnFailure: process.env['INVARIANT_SHRINK'] !== '1' },
        );
      } catch (error) {
        console.error(
          `trust invariant: failed after ${sequences} sequences (seed ${SEED}); the smallest failing sequence did:\n  ${failingLog.join('\n  ')}`,
        );
        throw error;
      } finally {
        vi.useRealTimers();
      }
      console.log(
        `trust invariant: ${sequences} sequences, seed ${SEED}, up to ${STEPS} steps each; ${JSON.stringify(tally)}`,
      );
      // A run that exercised nothing proves nothing.
      expect(tally.runs).toBeGreaterThan(0);
      // Shell speaks 2026-07-28 (recording-servers-2026.ts): its calls that asked for input came again, through the door.
      expect(tally.legs).toBeGreaterThan(0);
      // Term speaks 2026-07-28 over stdio (recording-stdio-server.ts), started as a command: its calls ran, checked.
      // Where no sandbox runs it does not start (docs/user/sandbox.md), and the invariant holds without its calls.
      if (sandboxAvailability().available) {
        expect(tally.stdioRuns).toBeGreaterThan(0);
        // Term renamed, removed and added again (itself and another identity), repointed and accepted.
        const term = tally.termLifecycle;
        expect([term.renames, term.readded, term.readdedOther, term.repointed, term.accepted]).not.toContain(0);
      }
      // Calls waited on the CLI's acceptance question: run after a yes, refused after a no or a change meanwhile.
      const acceptance = tally.acceptance;
      expect([
        acceptance.waited,
        acceptance.ranAfterYes,
        acceptance.refusedAfterNo,
        acceptance.refusedChanged,
      ]).not.toContain(0);
      // Calls run as MCP tasks (invariant-tasks.ts): created only once allowed, cancelled, finished, and let go on a stop.
      expect([tally.tasks.created, tally.tasks.cancelled, tally.tasks.completed, tally.tasks.detached]).not.toContain(
        0,
      );
      // Tasks of both revisions kept running across later steps: some stopped by a deny rule that came meanwhile, some
      // completed (invariant-tasks.ts `watchKeptTasks`).
      for (const revision of ['2025-11-25', '2026-07-28'] as const) {
        const kept = tally.keptTasks[revision];
        expect({ revision, kept: [kept.kept, kept.denied, kept.completed].includes(0) }).toEqual({
          revision,
          kept: false,
        });
      }
      // Shell's calls of shutdown ran as tasks of the 2026-07-28 extension (recording-tasks-2026.ts), on the raw path.
      expect(modernTaskControl.created - modernTasksBefore).toBeGreaterThan(0);
      expect(tally.approvalsApplied).toBeGreaterThan(0);
      expect(tally.approvalsRefused).toBeGreaterThan(0);
      expect(tally.editsApplied).toBeGreaterThan(0);
      // Answers pressed on the desktop notification went through the engine; late presses on decided calls did not.
      expect(tally.notificationDecisions).toBeGreaterThan(0);
      expect(tally.notificationRefused).toBeGreaterThan(0);
      expect(tally.remembered).toBeGreaterThan(0);
      expect(tally.restarts).toBeGreaterThan(0);
      expect(tally.sentWithCachedTools).toBeGreaterThan(0);
      expect(tally.timeouts).toBeGreaterThan(0);
      expect(tally.samplingRequests).toBeGreaterThan(0);
      expect(tally.samplingAnswers).toBeGreaterThan(0);
      expect(tally.serverRequestDecisions).toBeGreaterThan(0);
      // Server requests answered through the one engine: allowed, denied, and timed out.
      expect(tally.serverRequestsAllowed).toBeGreaterThan(0);
      expect(tally.serverRequestsDenied).toBeGreaterThan(0);
      expect(tally.serverRequestTimeouts).toBeGreaterThan(0);
      expect(tally.elicitationAnswers).toBeGreaterThan(0);
      expect(tally.elicitationsAccepted).toBeGreaterThan(0);
      // Calls sent again below the coordinator: after a -32042 page, and servers reconnecting on their own.
      expect(tally.pagesRequired).toBeGreaterThan(0);
      expect(tally.sentAgainAfterPage).toBeGreaterThan(0);
      expect(tally.reconnects).toBeGreaterThan(0);
      // What a server is: renamed, removed, another server under a freed name, the same one under a new name.
      expect(tally.renames).toBeGreaterThan(0);
      expect(tally.removals).toBeGreaterThan(0);
      expect(tally.addedOther).toBeGreaterThan(0);
      expect(tally.addedSame).toBeGreaterThan(0);
      expect(tally.runsAfterNameReuse).toBeGreaterThan(0);
      // A server pointed at another identity without acceptance (held, not started), and accepted.
      expect(tally.repointed).toBeGreaterThan(0);
      expect(tally.repointedByFile).toBeGreaterThan(0);
      expect(tally.accepted).toBeGreaterThan(0);
      expect(tally.appCallsAsked).toBeGreaterThan(0);
      expect(tally.appCallsRan).toBeGreaterThan(0);
      expect(tally.appCallDecisions).toBeGreaterThan(0);
      expect(tally.appCallsStale).toBeGreaterThan(0);
      // Answers written to the answers inbox by another connection: applied by the holder, and refused by it.
      expect(tally.relayedApplied).toBeGreaterThan(0);
      expect(tally.relayedRefused).toBeGreaterThan(0);
      // A record naming a running process that is no holder: never listed, its answer refused with nothing sent.
      expect(tally.forgedHoldersRefused).toBeGreaterThan(0);
      // Insights suggestions accepted into the policy (invariant-suggestions.ts).
      expect(tally.suggestionsAccepted).toBeGreaterThan(0);
      // …and one refused because a deny rule caught one of the calls it would allow.
      expect(tally.suggestionsRefused).toBeGreaterThan(0);
      // The contained probe's profile widened (allowed and denied) and narrowed through the engine, and read.
      if (sandboxAvailability().available && RUNS >= 50) {
        expect(tally.sandbox.allowed).toBeGreaterThan(0);
        expect(tally.sandbox.denied).toBeGreaterThan(0);
        expect(tally.sandbox.reads).toBeGreaterThan(0);
      }
    },
  );
});
