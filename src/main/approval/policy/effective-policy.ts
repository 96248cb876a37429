import {
  DEFAULT_APPROVAL_POLICY,
  type ApprovalPolicy,
  type ManagedPolicy,
  type ManagedSettingKey,
  type ManagedSettings,
  type PolicyUpdate,
  type StoredApprovalPolicy,
} from '../../../shared/approval';

/**
 * The policy in force, from three layers (docs/user/organisation-policy.md): the organisation's `locked` settings over
 * what the person set over the organisation's `defaults` over the built-in defaults. A setting is taken whole
 * (`mode`, `timeoutSeconds`, `rules`, the `servers` map, the `tools` map) from the first layer that has it; locked
 * `servers` and `tools` entries then replace those entries. Pure: the policy service calls it on every change.
 */

/** Each top-level setting of the person's policy, as the person last saw it without the locks. */
export function unlockedPolicy(stored: StoredApprovalPolicy, defaults: ManagedSettings): ApprovalPolicy {
  return {
    mode: stored.mode ?? defaults.mode ?? DEFAULT_APPROVAL_POLICY.mode,
    timeoutSeconds: stored.timeoutSeconds ?? defaults.timeoutSeconds ?? DEFAULT_APPROVAL_POLICY.timeoutSeconds,
    servers: copyRecord(
      stored.servers ??
        Object.fromEntries(
          Object.entries(defaults.servers ?? {}).map(([server, settings]) => [
            server,
            { autoApprove: false, ...settings },
          ]),
        ),
    ),
    tools: Object.fromEntries(
      Object.entries(stored.tools ?? defaults.tools ?? {}).map(([server, byTool]) => [server, copyRecord(byTool)]),
    ),
    rules: [...(stored.rules ?? defaults.rules ?? [])],
  };
}

export function effectivePolicy(stored: StoredApprovalPolicy, managed: ManagedPolicy | null): ApprovalPolicy {
  const policy = unlockedPolicy(stored, managed?.defaults ?? {});
  const locked = managed?.locked ?? {};
  const servers = new Map(Object.entries(policy.servers));
  // A lock replaces the parts it names; the person's other settings of that server (its sampling) stay.
  for (const [server, settings] of Object.entries(locked.servers ?? {}))
    servers.set(server, { autoApprove: false, ...servers.get(server), ...settings });
  const tools = new Map(
    Object.entries(policy.tools).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]),
  );
  for (const [server, byTool] of Object.entries(locked.tools ?? {})) {
    const settings = tools.get(server) ?? new Map();
    for (const [tool, setting] of Object.entries(byTool)) settings.set(tool, setting);
    tools.set(server, settings);
  }
  return {
    mode: locked.mode ?? policy.mode,
    timeoutSeconds: locked.timeoutSeconds ?? policy.timeoutSeconds,
    servers: Object.fromEntries(servers),
    tools: Object.fromEntries([...tools].map(([server, byTool]) => [server, Object.fromEntries(byTool)])),
    rules: policy.rules,
  };
}

/** The settings where the organisation's default is in force: it has one, and the person has not set that setting. */
export function defaultedSettings(stored: StoredApprovalPolicy, managed: ManagedPolicy | null): ManagedSettingKey[] {
  const defaults = managed?.defaults ?? {};
  const keys = ['mode', 'timeoutSeconds', 'servers', 'tools', 'rules'] as const;
  return keys.filter((key) => defaults[key] !== undefined && stored[key] === undefined);
}

/** What a change would do to a locked setting, in words (empty when it leaves every lock alone). */
export function lockedParts(change: PolicyUpdate, locked: ManagedSettings): string[] {
  const parts: string[] = [];
  if (change.mode !== undefined && locked.mode !== undefined && change.mode !== locked.mode)
    parts.push(`the global mode (locked to ${locked.mode})`);
  if (
    change.timeoutSeconds !== undefined &&
    locked.timeoutSeconds !== undefined &&
    change.timeoutSeconds !== locked.timeoutSeconds
  ) {
    parts.push(`the approval timeout (locked to ${locked.timeoutSeconds} s)`);
  }
  const lockedServers = new Map(Object.entries(locked.servers ?? {}));
  for (const [server, settings] of Object.entries(change.servers ?? {})) {
    const lock = lockedServers.get(server);
    if (lock === undefined) continue;
    const differs = <K extends 'autoApprove' | 'sampling' | 'samplingTokenBudget'>(key: K): boolean =>
      lock[key] !== undefined && (settings === null || (settings[key] !== undefined && settings[key] !== lock[key]));
    if (differs('autoApprove'))
      parts.push(`the server setting '${server}' (locked to ${lock.autoApprove ? 'auto-approve' : 'ask'})`);
    if (differs('sampling')) parts.push(`the sampling of '${server}' (locked to ${lock.sampling})`);
    if (differs('samplingTokenBudget'))
      parts.push(`the sampling budget of '${server}' (locked to ${lock.samplingTokenBudget} tokens)`);
  }
  const lockedTools = new Map(
    Object.entries(locked.tools ?? {}).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]),
  );
  for (const [server, byTool] of Object.entries(change.tools ?? {})) {
    for (const [tool, setting] of Object.entries(byTool)) {
      const lock = lockedTools.get(server)?.get(tool);
      if (lock !== undefined && setting !== lock)
        parts.push(`the tool setting '${server}.${tool}' (locked to ${lock})`);
    }
  }
  return parts;
}

/** The top-level settings a change writes. */
export function touchedSettings(change: PolicyUpdate): ('mode' | 'timeoutSeconds' | 'servers' | 'tools' | 'rules')[] {
  return (['mode', 'timeoutSeconds', 'servers', 'tools', 'rules'] as const).filter((key) => change[key] !== undefined);
}

function copyRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record));
}
