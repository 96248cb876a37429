import fs from 'node:fs';
import path from 'node:path';
import { ManagedPolicySchema, type ManagedPolicy } from '../../shared/approval';
import { globProblem, ruleProblems } from './policy/rule-compiler';

/**
 * The environment variable that names the organisation's policy file where the OS location holds none (a
 * deployment without administrator rights, CI, tests). It never replaces a file at the OS location: whoever can set
 * the app's environment must not be able to swap the organisation's policy for their own.
 */
export const MANAGED_POLICY_ENV = 'WORKBENCH_MANAGED_POLICY';

/**
 * Stands in for the OS location when no file is there, for tests (a test cannot write to /etc). Like
 * WORKBENCH_MANAGED_POLICY, it never hides a file at the real OS location (docs/user/organisation-policy.md).
 */
export const MANAGED_POLICY_SYSTEM_FILE_ENV = 'WORKBENCH_MANAGED_POLICY_SYSTEM_FILE';

/** Where the file came from: the environment variable, or the OS's managed-settings location. */
export type ManagedPolicySource = 'env' | 'system';

/**
 * The OS's managed-settings location, where administrators deploy machine-wide policy (as Claude Code's
 * `managed-settings.json` and VS Code's policies do): only administrators can write there.
 */
export function systemManagedPolicyFile(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (platform === 'darwin') return '/Library/Application Support/AIWorkbench/managed-policy.json';
  if (platform === 'win32')
    return path.win32.join(env.ProgramData ?? 'C:\\ProgramData', 'AIWorkbench', 'managed-policy.json');
  return '/etc/ai-workbench/managed-policy.json';
}

/** Whether a file is there; one that is there but cannot be looked at (EACCES) counts, so reading it fails closed. */
function present(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

/**
 * Which policy file applies: the OS location's when a file is there — it wins over every environment variable —
 * (or the test stand-in's), else the one WORKBENCH_MANAGED_POLICY names, else none.
 */
export function locateManagedPolicy(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): { file: string; source: ManagedPolicySource } | null {
  const standIn = env[MANAGED_POLICY_SYSTEM_FILE_ENV]?.trim();
  for (const system of [systemManagedPolicyFile(platform, env), ...(standIn ? [standIn] : [])]) {
    if (present(system)) return { file: system, source: 'system' };
  }
  const named = env[MANAGED_POLICY_ENV];
  if (named !== undefined && named.trim() !== '') return { file: named, source: 'env' };
  return null;
}

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
  readonly source: ManagedPolicySource;
  readonly policy: ManagedPolicy;
}

/**
 * Reads the managed policy (read-only: it is never written). No file named → null. A named file
 * that is missing, unreadable, not JSON, or has an invalid field raises `ManagedPolicyError` naming
 * the file and the field: failing closed, because starting without it would drop the organisation's rules.
 */
export function loadManagedPolicy(
  file: string | undefined,
  source: ManagedPolicySource = 'env',
): LoadedManagedPolicy | null {
  if (file === undefined || file.trim() === '') return null;
  const resolved = path.resolve(file);
  const from = source === 'env' ? MANAGED_POLICY_ENV : "the system's managed-settings location";
  const fail = (problem: string, cause?: unknown): ManagedPolicyError =>
    new ManagedPolicyError(
      resolved,
      `The managed policy file ${resolved} (from ${from}) ${problem}. AI Workbench does not start without it, ` +
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
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.map(String).join('.') || '(the document)'}: ${issue.message}`,
    );
    throw fail(`has an invalid value: ${problems.join('; ')}`);
  }
  const lists = [
    ['rules', parsed.data.rules],
    ['defaults.rules', parsed.data.defaults.rules ?? []],
    ['locked.rules', parsed.data.locked.rules ?? []],
  ] as const;
  const problems = lists.flatMap(([where, rules]) =>
    rules.flatMap((rule, index) =>
      ruleProblems(rule).map(
        (problem) => `${where}.${index}.${problem.path.join('.')} (rule '${rule.id}'): ${problem.problem}`,
      ),
    ),
  );
  if (problems.length > 0) throw fail(`has an invalid rule: ${problems.join('; ')}`);
  const idpProblems = (parsed.data.oauth?.crossAppAccess ?? []).flatMap((entry, index) =>
    [
      ['server', entry.server],
      ...Object.entries(entry.serverIdentity ?? {}).map(([key, glob]) => [`serverIdentity.${key}`, glob] as const),
    ].flatMap(([where, glob]) => {
      const problem = glob === undefined ? null : globProblem(glob);
      return problem === null ? [] : [`oauth.crossAppAccess.${index}.${where}: ${problem}`];
    }),
  );
  if (idpProblems.length > 0) throw fail(`has an invalid value: ${idpProblems.join('; ')}`);
  return { file: resolved, source, policy: parsed.data };
}
