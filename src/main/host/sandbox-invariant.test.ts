/**
 * The trust invariant's sandbox steps (docs/dev/testing.md, "The trust invariant"): random sequences of widening
 * requests (allowed, denied, left waiting), narrowings, the organisation locking and unlocking the profiles, and reads
 * by a contained probe server, against the real services and the real bubblewrap. After every step
 * (testing/invariant-sandbox.ts): every grant in force was made by an allow decision of its widening request, recorded
 * with it; a file was read exactly when the audit log granted it; `audit verify` is OK.
 * INVARIANT_SANDBOX_RUNS and INVARIANT_SEED run it longer locally.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsSandbox } from '../testing/skip-reason';
import { createSandboxWorld, sandboxStepArb, type SandboxStep } from './testing/invariant-sandbox';

const FILES = 2;
const RUNS = Number(process.env.INVARIANT_SANDBOX_RUNS ?? 3);
const SEED = Number(process.env.INVARIANT_SEED ?? 20261127);

const suite = needsSandbox('the trust invariant: sandbox widen and narrow (real bubblewrap)');
// Skipped where no bubblewrap runs, with the sandbox probe's reason in its title (testing/skip-reason.ts); a skip is
// listed by npm test with that reason and never counted as passed.
describe.skipIf(suite.skipped)(suite.title, () => {
  it('never lifts a block without an allow decision, and never keeps one an allow decision lifted', async () => {
    const totals = { reads: 0, allowed: 0, denied: 0, refused: 0, narrowed: 0 };
    // Each sequence ends with a read, so that the last change is always tried.
    const sequences = fc
      .array(sandboxStepArb(FILES), { minLength: 4, maxLength: 10 })
      .map((steps): SandboxStep[] => [...steps, { kind: 'probe' }]);
    await fc.assert(
      fc.asyncProperty(sequences, async (steps) => {
        const world = await createSandboxWorld(FILES);
        try {
          await world.check();
          for (const step of steps) {
            await world.step(step);
            try {
              await world.check();
            } catch (error) {
              throw new Error(`${(error as Error).message}\nsteps:\n${world.log.join('\n')}`, { cause: error });
            }
          }
        } finally {
          for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += world.tally[key];
          await world.dispose();
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // A green run that exercised nothing is no evidence.
    expect(totals.reads).toBeGreaterThan(0);
    expect(totals.allowed).toBeGreaterThan(0);
  }, 600_000);
});
