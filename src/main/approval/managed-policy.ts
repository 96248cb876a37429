import fs from 'node:fs';
import path from 'node:path';
import { ManagedPolicySchema, type ManagedPolicy } from '../../shared/approval';
import { ruleProblems } from './policy/rule-compiler';

/** The environment variable that names the organisation's policy file. */
export const MANAGED_POLICY_ENV = 'WORKBENCH_MANAGED_POLICY';

/** The organisation's policy file cannot be used. AI Workbench does not start without it: its rules would not apply. */
export class ManagedPolicyError extends Error {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ManagedPolicyError';
  }
}

/** The organisation's policy as read at start, and the file it came from. */
export interface LoadedManagedPolicy {
  readonly file: string;
  readonly policy: ManagedPolicy;
}

/**
 * Reads the managed policy (read-only: it is never written). No file named → null. A named file
 * that is missing, unreadable, not JSON, or has an invalid field raises `ManagedPolicyError` naming
 * the file and the field: failing closed, because starting without it would drop the organisation's rules.
 */
export function loadManagedPolicy(file: string | undefined): LoadedManagedPolicy | null {
  if (file === undefined || file.trim() === '') return null;
  const resolved = path.resolve(file);
  const fail = (problem: string, cause?: unknown): ManagedPolicyError =>
    new ManagedPolicyError(
      resolved,
      `The managed policy file ${resolved} (from ${MANAGED_POLICY_ENV}) ${problem}. AI Workbench does not start without it, ` +
        "because your organisation's approval rules would not apply; ask whoever manages this machine.",
      { cause },
    );
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'utf8');
  } catch (error) {
    throw fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, error);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw fail(`is not valid JSON (${(error as Error).message})`, error);
  }
  const parsed = ManagedPolicySchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(the document)'}: ${issue.message}`);
    throw fail(`has an invalid value: ${problems.join('; ')}`);
  }
  const problems = parsed.data.rules.flatMap((rule, index) =>
    ruleProblems(rule).map((problem) => `rules.${index}.${problem.path.join('.')} (rule '${rule.id}'): ${problem.problem}`),
  );
  if (problems.length > 0) throw fail(`has an invalid rule: ${problems.join('; ')}`);
  return { file: resolved, policy: parsed.data };
}
