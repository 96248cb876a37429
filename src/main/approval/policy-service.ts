import type { z } from 'zod';
import {
  ApprovalPolicySchema,
  PolicyUpdateSchema,
  StoredApprovalPolicySchema,
  type StoredApprovalPolicy,
  type ApprovalPolicy,
  type PolicyUpdate,
  type PolicyView,
  type PolicyWarning,
} from '../../shared/approval';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';
import { compilePolicy, policyProblems, type CompiledPolicy } from './policy/compiled-policy';
import {
  defaultedSettings,
  effectivePolicy,
  lockedParts,
  touchedSettings,
  unlockedPolicy,
} from './policy/effective-policy';
import type { LoadedManagedPolicy } from './managed-policy';
import { applyUpdate, PolicyChangeError } from './policy/policy-change';
import { describeProblem } from './policy/rule-compiler';
import { ruleFindings } from './policy/rule-findings';
import { sameNames, type TrustedServers } from './trusted-servers';
import type { AuditRecorder, PolicyChangeActor } from '../audit/audit-log';
import { approvalPolicyChange, trustChanges } from './policy-changes';
import { removedFromPolicy, renamedInPolicy } from './policy/server-bindings';
import type { ServerFactsByName } from '../../shared/server-identity';
import { organisationIdpsView } from './organisation-idp-lookup';

export const APPROVALS_SECTION = 'approvals';

/**
 * The user's approval policy (the `approvals` settings section) next to the organisation's. Changed
 * only through `update`, which validates everything before saving; recompiled once per change.
 */
export interface PolicyService {
  view(): PolicyView;
  /** Applies a partial change as one. Throws `invalid_input` naming the rule and field; nothing is saved then. */
  update(change: PolicyUpdate): PolicyView;
  /** The current policy, ready for decisions. */
  compiled(): CompiledPolicy;
  /**
   * A server was renamed, removed or added (docs/user/approvals.md, "A server's identity"): its settings and the rules
   * that name it alone follow a rename and go with a removal; a server added under a name that still holds settings
   * (left by a removal outside the app) starts without them. Returns whether settings were dropped for an added server.
   */
  followServer(change: ServerNameFollow): boolean;
}

export type ServerNameFollow =
  { kind: 'renamed'; from: string; to: string } | { kind: 'removed'; name: string } | { kind: 'added'; name: string };

/**
 * The section's schema: only what the person set (docs/user/organisation-policy.md), plus the rules' globs, regexes and
 * pointers (so a bad file names the field at start).
 */
export const ApprovalSettingsSchema = StoredApprovalPolicySchema.superRefine((policy, context) => {
  for (const problem of policyProblems({ rules: policy.rules ?? [] })) {
    context.addIssue({
      code: 'custom',
      path: ['rules', (problem.ruleNumber ?? 1) - 1, ...problem.path],
      message: problem.problem,
    });
  }
});

export function openApprovalSettings(
  settings: SettingsStore,
): SettingsSection<z.output<typeof ApprovalSettingsSchema>> {
  return settings.section(APPROVALS_SECTION, ApprovalSettingsSchema, {});
}

/** Where the policy service records each change (docs/user/audit-log.md, policy rows), and as whom. */
export interface PolicyRecording {
  audit: Pick<AuditRecorder, 'recordPolicyChange'>;
  /** Who changes the policy in this process: the person in the app or browser mode (`user`), or at the CLI (`cli`). */
  actor: PolicyChangeActor;
  /** A change made elsewhere in this process (a server's trust) that could not be recorded. */
  onError?: ((error: unknown) => void) | undefined;
}

export function createPolicyService(
  section: SettingsSection<StoredApprovalPolicy>,
  managed: LoadedManagedPolicy | null,
  events: EventHub,
  trusted: TrustedServers,
  recording: PolicyRecording,
): PolicyService {
  const organisation = managed?.policy ?? null;
  // The person's settings over the organisation's defaults, under its locks: settings.json edited by hand (before the
  // start or while it runs) cannot undo a lock, because the locks are laid over whatever the file says.
  const effective = (stored: StoredApprovalPolicy): ApprovalPolicy => effectivePolicy(stored, organisation);
  const compile = (stored: StoredApprovalPolicy): CompiledPolicy =>
    compilePolicy(effective(stored), organisation, trusted.names(), trusted.facts?.());
  let stored = section.get();
  let compiled = compile(stored);
  const view = (): PolicyView => ({
    policy: compiled.policy,
    managed: managed && {
      file: managed.file,
      source: managed.source,
      rules: managed.policy.rules,
      disallowNeverAsk: managed.policy.disallowNeverAsk,
      defaults: managed.policy.defaults,
      locked: managed.policy.locked,
      defaulted: defaultedSettings(stored, organisation),
      ...(managed.policy.oauth?.crossAppAccess
        ? { crossAppAccess: organisationIdpsView(managed.policy.oauth.crossAppAccess) }
        : {}),
    },
    warnings: warningsOf(compiled),
  });
  section.onDidChange((value) => {
    stored = value;
    compiled = compile(value);
    events.emit('policy.onDidChange', view());
  });
  // A server marked trusted (or no longer) in the MCP settings changes what step 7 allows.
  let factsSeen = factsSignature(trusted.facts?.());
  trusted.onDidChange(() => {
    const facts = factsSignature(trusted.facts?.());
    if (facts !== factsSeen && sameNames(compiled.trustedServers, trusted.names())) {
      // A server renamed, added, removed or run differently: what its settings allow follows (docs/user/approvals.md).
      factsSeen = facts;
      compiled = compile(stored);
      events.emit('policy.onDidChange', view());
      return;
    }
    factsSeen = facts;
    if (sameNames(compiled.trustedServers, trusted.names())) return;
    // The MCP settings hold trust and were written already: the row follows the change (docs/user/audit-log.md).
    try {
      for (const change of trustChanges(compiled.trustedServers, trusted.names(), recording.actor))
        recording.audit.recordPolicyChange(change);
    } catch (error) {
      recording.onError?.(error);
    }
    compiled = compile(stored);
    events.emit('policy.onDidChange', view());
  });
  const follow = (change: (current: StoredApprovalPolicy) => StoredApprovalPolicy | null): boolean => {
    let dropped = false;
    section.update((current) => {
      const next = change(current);
      if (next === null) return current;
      dropped = true;
      const record = approvalPolicyChange(effective(current), effective(next), recording.actor);
      if (record) recording.audit.recordPolicyChange(record);
      return next;
    });
    return dropped;
  };
  return {
    view,
    compiled: () => compiled,
    followServer(change) {
      if (change.kind === 'renamed') return follow((current) => renamedInPolicy(current, change.from, change.to));
      return follow((current) => removedFromPolicy(current, change.name));
    },
    update(change) {
      // The contract validates this already; front ends that call the service directly (the CLI) get the same refusal.
      const checked = PolicyUpdateSchema.safeParse(change);
      if (!checked.success) {
        const text = checked.error.issues
          .map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
          .join('; ');
        throw new WorkbenchError('invalid_input', `The approval policy was not changed: ${text}.`, {
          issues: checked.error.issues,
        });
      }
      const locked = lockedParts(checked.data, organisation?.locked ?? {});
      if (managed && locked.length > 0) {
        throw new WorkbenchError(
          'locked',
          `Set by your organisation: ${locked.join('; ')} cannot be changed (${managed.file}). The approval policy was not changed.`,
          { locked, file: managed.file },
        );
      }
      // Applied to the policy as the file holds it now: another process (the CLI) may have changed it. Only the settings
      // the change names are written: the others keep following the organisation's defaults.
      section.update((current) => {
        let updated: ApprovalPolicy;
        try {
          updated = applyUpdate(unlockedPolicy(current, organisation?.defaults ?? {}), checked.data);
        } catch (error) {
          if (error instanceof PolicyChangeError) throw new WorkbenchError('invalid_input', error.message);
          throw error;
        }
        const parsed = ApprovalPolicySchema.safeParse(updated);
        if (!parsed.success) {
          const text = parsed.error.issues
            .map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
            .join('; ');
          throw new WorkbenchError('invalid_input', `The approval policy was not changed: ${text}.`, {
            issues: parsed.error.issues,
          });
        }
        const problems = policyProblems(parsed.data);
        if (problems.length > 0) {
          throw new WorkbenchError(
            'invalid_input',
            `The approval policy was not changed: ${problems.map(describeProblem).join('; ')}.`,
            { problems },
          );
        }
        const next: StoredApprovalPolicy = { ...current };
        for (const key of touchedSettings(checked.data)) Object.assign(next, { [key]: parsed.data[key] });
        // Recorded before it is saved: a change the audit log cannot record is not made.
        const record = approvalPolicyChange(effective(current), effective(next), recording.actor);
        if (record) recording.audit.recordPolicyChange(record);
        return next;
      });
      return view();
    },
  };
}

function warningsOf(compiled: CompiledPolicy): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  if (compiled.policy.mode === 'never-ask') {
    warnings.push(
      compiled.neverAskAllowed
        ? {
            kind: 'approvals-off',
            message: 'Approvals are off (never ask): tools run without asking you, unless a deny rule stops them.',
          }
        : {
            kind: 'never-ask-ignored',
            message:
              "Approvals are off in your settings, but your organisation's policy requires them: AI Workbench asks anyway.",
          },
    );
  }
  for (const [serverName, settings] of Object.entries(compiled.policy.servers)) {
    if (settings.autoApprove) {
      warnings.push({
        kind: 'server-auto-approve',
        serverName,
        message: `Every tool of '${serverName}' runs without asking you (server setting), except where a rule, the tool's own setting or the chat asks.`,
      });
    }
  }
  for (const finding of ruleFindings(compiled.rules)) {
    warnings.push({
      kind: finding.kind === 'shadowed' ? 'rule-shadowed' : 'rule-never-matches',
      ruleId: finding.ruleId,
      ...(finding.byRuleId === undefined ? {} : { byRuleId: finding.byRuleId }),
      message: finding.message,
    });
  }
  return warnings;
}

/** Enough of the servers' facts to tell whether a recompile changes anything. */
function factsSignature(facts: ServerFactsByName | undefined): string {
  if (!facts) return '';
  return JSON.stringify(
    [...facts].map(([name, fact]) => [name, fact.identity.key, fact.identityChanged?.previous ?? '', fact.formerNames]),
  );
}
