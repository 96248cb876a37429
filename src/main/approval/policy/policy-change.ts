import { randomUUID } from 'node:crypto';
import type { ApprovalPolicy, PolicyUpdate, ToolApprovalSetting } from '../../../shared/approval';

/** A change that cannot apply (an unknown rule id, a bad order); the services raise it as `invalid_input`. */
export class PolicyChangeError extends Error {
  constructor(message: string) {
    super(`The approval policy was not changed: ${message}`);
    this.name = 'PolicyChangeError';
  }
}

function invalid(message: string): PolicyChangeError {
  return new PolicyChangeError(message);
}

/** The change applied to a copy; ids and order are checked here, everything else by the schema after. */
export function applyUpdate(current: ApprovalPolicy, change: PolicyUpdate): ApprovalPolicy {
  // Maps, not objects: a server called "__proto__" is just a name, and entries can be dropped plainly.
  const servers = new Map(Object.entries(current.servers));
  const tools = new Map(
    Object.entries(current.tools).map(([server, byTool]) => [server, new Map(Object.entries(byTool))]),
  );
  for (const [server, settings] of Object.entries(change.servers ?? {})) {
    const before = servers.get(server);
    const autoApprove = settings?.autoApprove ?? before?.autoApprove ?? false;
    const sampling = settings?.sampling ?? before?.sampling;
    const samplingTokenBudget = settings?.samplingTokenBudget ?? before?.samplingTokenBudget;
    const kept = {
      autoApprove,
      ...(sampling !== undefined && sampling !== 'ask' ? { sampling } : {}),
      ...(samplingTokenBudget !== undefined ? { samplingTokenBudget } : {}),
    };
    if (settings && (autoApprove || Object.keys(kept).length > 1)) servers.set(server, kept);
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
      if (draft.id !== undefined && taken.has(draft.id))
        throw invalid(`a rule with the id '${draft.id}' exists already (add).`);
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
