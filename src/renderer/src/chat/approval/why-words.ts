export { asksBecause } from '../../../../shared/why-words';
import type { ConsideredStep, DecisionSourceKind } from '../../../../shared/approval';

/** The decision order's steps as a person names them (docs/user/approvals.md, "Which setting wins"). */
export const STEP_WORDS: Record<DecisionSourceKind, string> = {
  'managed-deny-rule': "Your organisation's deny rules",
  'deny-rule': 'Your deny rules',
  'approvals-off': 'Approvals off',
  'chat-grant': 'Allowed for this chat',
  'chat-mode': "This chat's approval mode",
  'ask-rule': 'Your ask rules',
  'allow-rule': 'Your allow rules',
  'tool-setting': "The tool's setting",
  'server-setting': "The server's setting",
  'global-setting': 'The global mode',
  'trusted-read-only': 'Read-only tools of servers whose annotations you trust',
  default: 'Nothing allows it',
};

export const STEP_RESULT_WORDS: Record<ConsideredStep['result'], string> = {
  decided: 'decided',
  passed: 'did not apply',
  ignored: 'ignored',
};
