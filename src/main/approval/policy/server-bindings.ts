import type { ApprovalRule, StoredApprovalPolicy } from '../../../shared/approval';
import { escapeGlob, globLiteral } from './glob-literal';

/**
 * What a server's rename or removal does to the person's approval settings (docs/user/approvals.md, "A server's
 * identity"): its server setting, its tools' settings and the rules that name it alone follow a rename and go with a
 * removal. Rules whose server is a pattern (`*`, `Git*`) name no one server and stay. Pure; null when nothing changes.
 */
export function renamedInPolicy(stored: StoredApprovalPolicy, from: string, to: string): StoredApprovalPolicy | null {
  if (from === to) return null;
  let changed = false;
  const next: StoredApprovalPolicy = { ...stored };
  if (stored.servers && Object.hasOwn(stored.servers, from)) {
    const { [from]: settings, ...rest } = stored.servers;
    next.servers = { ...rest, [to]: settings as NonNullable<typeof settings> };
    changed = true;
  }
  if (stored.tools && Object.hasOwn(stored.tools, from)) {
    const { [from]: settings, ...rest } = stored.tools;
    next.tools = { ...rest, [to]: settings as NonNullable<typeof settings> };
    changed = true;
  }
  if (stored.rules?.some((rule) => namesOnly(rule, from))) {
    next.rules = stored.rules.map((rule) => (namesOnly(rule, from) ? { ...rule, server: escapeGlob(to) } : rule));
    changed = true;
  }
  return changed ? next : null;
}

export function removedFromPolicy(stored: StoredApprovalPolicy, name: string): StoredApprovalPolicy | null {
  let changed = false;
  const next: StoredApprovalPolicy = { ...stored };
  if (stored.servers && Object.hasOwn(stored.servers, name)) {
    next.servers = Object.fromEntries(Object.entries(stored.servers).filter(([key]) => key !== name));
    changed = true;
  }
  if (stored.tools && Object.hasOwn(stored.tools, name)) {
    next.tools = Object.fromEntries(Object.entries(stored.tools).filter(([key]) => key !== name));
    changed = true;
  }
  if (stored.rules?.some((rule) => namesOnly(rule, name))) {
    next.rules = stored.rules.filter((rule) => !namesOnly(rule, name));
    changed = true;
  }
  return changed ? next : null;
}

/** Whether a rule names this server and no other (its server is the plain or escaped name). */
export function namesOnly(rule: Pick<ApprovalRule, 'server'>, name: string): boolean {
  return globLiteral(rule.server) === name;
}
