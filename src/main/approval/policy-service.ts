import { randomUUID } from 'node:crypto';
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
  type ToolApprovalSetting,
} from '../../shared/approval';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';
import { compilePolicy, policyProblems, type CompiledPolicy } from './policy/compiled-policy';
import { defaultedSettings, effectivePolicy, lockedParts, touchedSettings, unlockedPolicy } from './policy/effective-policy';
import type { LoadedManagedPolicy } from './managed-policy';
import { describeProblem } from './policy/rule-compiler';
import { sameNames, type TrustedServers } from './trusted-servers';
import type { AuditRecorder, PolicyChangeActor } from '../audit/audit-log';
import { approvalPolicyChange, trustChanges } from './policy-changes';

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
}

/**
 * The section's schema: only what the person set (docs/user/organisation-policy.md), plus the rules' globs, regexes and
 * pointers (so a bad file names the field at start).
 */
export const ApprovalSettingsSchema = StoredApprovalPolicySchema.superRefine((policy, context) => {
  for (const problem of policyProblems({ rules: policy.rules ?? [] })) {
    context.addIssue({ code: 'custom', path: ['rules', (problem.ruleNumber ?? 1) - 1, ...problem.path], message: problem.problem });
  }
});

export function openApprovalSettings(settings: SettingsStore): SettingsSection<z.output<typeof ApprovalSettingsSchema>> {
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
  const compile = (stored: StoredApprovalPolicy): CompiledPolicy => compilePolicy(effective(stored), organisation, trusted.names());
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
    },
    warnings: warningsOf(compiled),
  });
  section.onDidChange((value) => {
    stored = value;
    compiled = compile(value);
    events.emit('policy.onDidChange', view());
  });
  // A server marked trusted (or no longer) in the MCP settings changes what step 7 allows.
  trusted.onDidChange(() => {
    if (sameNames(compiled.trustedServers, trusted.names())) return;
    // The MCP settings hold trust and were written already: the row follows the change (docs/user/audit-log.md).
    try {
      for (const change of trustChanges(compiled.trustedServers, trusted.names(), recording.actor)) recording.audit.recordPolicyChange(change);
    } catch (error) {
      recording.onError?.(error);
    }
    compiled = compile(compiled.policy);
    events.emit('policy.onDidChange', view());
  });
  return {
    view,
    compiled: () => compiled,
    update(change) {
      // The contract validates this already; front ends that call the service directly (the CLI) get the same refusal.
      const checked = PolicyUpdateSchema.safeParse(change);
      if (!checked.success) {
        const text = checked.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`).join('; ');
        throw new WorkbenchError('invalid_input', `The approval policy was not changed: ${text}.`, { issues: checked.error.issues });
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
        const parsed = ApprovalPolicySchema.safeParse(applyUpdate(unlockedPolicy(current, organisation?.defaults ?? {}), checked.data));
        if (!parsed.success) {
          const text = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`).join('; ');
          throw new WorkbenchError('invalid_input', `The approval policy was not changed: ${text}.`, { issues: parsed.error.issues });
        }
        const problems = policyProblems(parsed.data);
        if (problems.length > 0) {
          throw new WorkbenchError('invalid_input', `The approval policy was not changed: ${problems.map(describeProblem).join('; ')}.`, { problems });
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

function invalid(message: string): WorkbenchError {
  return new WorkbenchError('invalid_input', `The approval policy was not changed: ${message}`);
}

/** The change applied to a copy; ids and order are checked here, everything else by the schema after. */
export function applyUpdate(current: ApprovalPolicy, change: PolicyUpdate): ApprovalPolicy {
  // Maps, not objects: a server called "__proto__" is just a name, and entries can be dropped plainly.
  const servers = new Map(Object.entries(current.servers));
  const tools = new Map(Object.entries(current.tools).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]));
  for (const [server, settings] of Object.entries(change.servers ?? {})) {
    const autoApprove = settings?.autoApprove ?? servers.get(server)?.autoApprove ?? false;
    if (settings && autoApprove) servers.set(server, { autoApprove });
    else servers.delete(server);
  }
  for (const [server, byTool] of Object.entries(change.tools ?? {})) {
    const settings = tools.get(server) ?? new Map<string, ToolApprovalSetting>();
    for (const [tool, setting] of Object.entries(byTool)) {
      if (setting === 'inherit') settings.delete(tool);
      else settings.set(tool, setting);
    }
    if (settings.size > 0) tools.set(server, settings);
    else tools.delete(server);
  }
  const next: ApprovalPolicy = {
    mode: change.mode ?? current.mode,
    timeoutSeconds: change.timeoutSeconds ?? current.timeoutSeconds,
    servers: Object.fromEntries(servers),
    tools: Object.fromEntries([...tools].map(([server, byTool]) => [server, Object.fromEntries(byTool)])),
    rules: [...current.rules],
  };
  const rules = change.rules;
  if (rules) {
    const ids = (): Set<string> => new Set(next.rules.map((rule) => rule.id));
    for (const id of rules.remove ?? []) {
      const index = next.rules.findIndex((rule) => rule.id === id);
      if (index < 0) throw invalid(`no rule has the id '${id}' (remove).`);
      next.rules.splice(index, 1);
    }
    for (const rule of rules.update ?? []) {
      const index = next.rules.findIndex((existing) => existing.id === rule.id);
      if (index < 0) throw invalid(`no rule has the id '${rule.id}' (update).`);
      next.rules[index] = rule;
    }
    const added = (rules.add ?? []).map((draft) => {
      const taken = ids();
      if (draft.id !== undefined && taken.has(draft.id)) throw invalid(`a rule with the id '${draft.id}' exists already (add).`);
      let id = draft.id;
      while (id === undefined || taken.has(id)) id = `rule-${randomUUID().slice(0, 8)}`;
      const rule = { ...draft, id };
      next.rules.push(rule);
      return rule;
    });
    if (rules.index !== undefined && added.length > 0) {
      next.rules.splice(next.rules.length - added.length, added.length);
      next.rules.splice(Math.min(rules.index, next.rules.length), 0, ...added);
    }
    if (rules.order) {
      const existing = ids();
      const given = new Set(rules.order);
      const missing = [...existing].filter((id) => !given.has(id));
      const unknown = rules.order.filter((id) => !existing.has(id));
      if (missing.length > 0 || unknown.length > 0 || given.size !== rules.order.length) {
        const parts = [
          missing.length > 0 ? `missing ${missing.map((id) => `'${id}'`).join(', ')}` : '',
          unknown.length > 0 ? `unknown ${unknown.map((id) => `'${id}'`).join(', ')}` : '',
          given.size !== rules.order.length ? 'an id listed twice' : '',
        ].filter(Boolean);
        throw invalid(`the new order must list every rule id exactly once (${parts.join('; ')}).`);
      }
      const byId = new Map(next.rules.map((rule) => [rule.id, rule]));
      next.rules = rules.order.map((id) => byId.get(id) as ApprovalPolicy['rules'][number]);
    }
  }
  return next;
}

function warningsOf(compiled: CompiledPolicy): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  if (compiled.policy.mode === 'never-ask') {
    warnings.push(
      compiled.neverAskAllowed
        ? { kind: 'approvals-off', message: 'Approvals are off (never ask): tools run without asking you, unless a deny rule stops them.' }
        : {
            kind: 'never-ask-ignored',
            message: "Approvals are off in your settings, but your organisation's policy requires them: AI Workbench asks anyway.",
          },
    );
  }
  for (const [serverName, settings] of Object.entries(compiled.policy.servers)) {
    if (settings.autoApprove) {
      warnings.push({ kind: 'server-auto-approve', serverName, message: `Every tool of '${serverName}' runs without asking you (server setting), except where a rule, the tool's own setting or the chat asks.` });
    }
  }
  return warnings;
}
