import type {
  ChatApprovalMode,
  DecisionOutcome,
  DecisionSourceKind,
  GlobalApprovalMode,
  ToolApprovalSetting,
} from '../../../../shared/approval';

/**
 * The precedence of docs/dev/architecture.md ("The decision pipeline") written a second time, as a plain table
 * over the things a person can set, so the property tests can hold the pipeline to it. It shares no code
 * with `decision-pipeline.ts` on purpose: if both are wrong, they must be wrong in the same words.
 */
export interface PrecedenceFactors {
  readonly managedDeny: boolean;
  readonly userDeny: boolean;
  readonly globalMode: GlobalApprovalMode;
  /** The managed policy's `disallowNeverAsk`. */
  readonly organisationForbidsNeverAsk: boolean;
  readonly askRule: boolean;
  readonly toolSetting: ToolApprovalSetting;
  readonly serverAutoApprove: boolean;
  readonly chatMode: ChatApprovalMode;
  /** A grant of this chat for this tool: for its current definition, or for an earlier one. */
  readonly grant: 'none' | 'valid' | 'stale';
  readonly allowRule: boolean;
  readonly readOnlyHint: boolean;
  readonly serverTrusted: boolean;
}

export interface ExpectedDecision {
  readonly step: number;
  readonly outcome: DecisionOutcome;
  readonly kind: DecisionSourceKind;
  /** Only explicit asks (step 3) tell the card that "Allow for this chat" will not stop the questions. */
  readonly keepsAsking: boolean;
}

interface Row extends ExpectedDecision {
  readonly when: (factors: PrecedenceFactors) => boolean;
}

const neverAskAllowed = (factors: PrecedenceFactors): boolean => !factors.organisationForbidsNeverAsk;

/** First row that holds wins. */
export const PRECEDENCE_TABLE: readonly Row[] = [
  { step: 1, outcome: 'deny', kind: 'managed-deny-rule', keepsAsking: false, when: (f) => f.managedDeny },
  { step: 1, outcome: 'deny', kind: 'deny-rule', keepsAsking: false, when: (f) => f.userDeny },
  {
    step: 2,
    outcome: 'allow',
    kind: 'approvals-off',
    keepsAsking: false,
    when: (f) => f.globalMode === 'never-ask' && neverAskAllowed(f),
  },
  { step: 3, outcome: 'ask', kind: 'ask-rule', keepsAsking: true, when: (f) => f.askRule },
  { step: 3, outcome: 'ask', kind: 'tool-setting', keepsAsking: true, when: (f) => f.toolSetting === 'always-ask' },
  { step: 3, outcome: 'ask', kind: 'chat-mode', keepsAsking: true, when: (f) => f.chatMode === 'always-ask' },
  { step: 4, outcome: 'allow', kind: 'chat-grant', keepsAsking: false, when: (f) => f.grant === 'valid' },
  {
    step: 5,
    outcome: 'allow',
    kind: 'chat-mode',
    keepsAsking: false,
    when: (f) => f.chatMode === 'never-ask' && neverAskAllowed(f),
  },
  { step: 6, outcome: 'allow', kind: 'allow-rule', keepsAsking: false, when: (f) => f.allowRule },
  {
    step: 7,
    outcome: 'allow',
    kind: 'tool-setting',
    keepsAsking: false,
    when: (f) => f.toolSetting === 'auto-approve',
  },
  {
    step: 7,
    outcome: 'allow',
    kind: 'server-setting',
    keepsAsking: false,
    when: (f) => f.toolSetting === 'inherit' && f.serverAutoApprove,
  },
  {
    step: 8,
    outcome: 'allow',
    kind: 'trusted-read-only',
    keepsAsking: false,
    when: (f) => f.globalMode === 'auto-approve-read-only-trusted' && f.serverTrusted && f.readOnlyHint,
  },
  // A "never ask" the organisation forbids is named as the reason; otherwise the global setting asks, or nothing allowed.
  {
    step: 9,
    outcome: 'ask',
    kind: 'default',
    keepsAsking: false,
    when: (f) => f.organisationForbidsNeverAsk && (f.globalMode === 'never-ask' || f.chatMode === 'never-ask'),
  },
  { step: 9, outcome: 'ask', kind: 'global-setting', keepsAsking: false, when: (f) => f.globalMode === 'ask' },
  { step: 9, outcome: 'ask', kind: 'default', keepsAsking: false, when: () => true },
];

export function expectedDecision(factors: PrecedenceFactors): ExpectedDecision {
  const row = PRECEDENCE_TABLE.find((candidate) => candidate.when(factors));
  if (!row) throw new Error('the precedence table ends with a row that always holds');
  return { step: row.step, outcome: row.outcome, kind: row.kind, keepsAsking: row.keepsAsking };
}

const BOOLEANS = [false, true] as const;

/** Every combination of the factors (20,736). */
export function* everyCombination(): Generator<PrecedenceFactors> {
  for (const managedDeny of BOOLEANS)
    for (const userDeny of BOOLEANS)
      for (const globalMode of ['ask', 'auto-approve-read-only-trusted', 'never-ask'] as const)
        for (const organisationForbidsNeverAsk of BOOLEANS)
          for (const askRule of BOOLEANS)
            for (const toolSetting of ['inherit', 'always-ask', 'auto-approve'] as const)
              for (const serverAutoApprove of BOOLEANS)
                for (const chatMode of ['use-tool-settings', 'always-ask', 'never-ask'] as const)
                  for (const grant of ['none', 'valid', 'stale'] as const)
                    for (const allowRule of BOOLEANS)
                      for (const readOnlyHint of BOOLEANS)
                        for (const serverTrusted of BOOLEANS)
                          yield {
                            managedDeny,
                            userDeny,
                            globalMode,
                            organisationForbidsNeverAsk,
                            askRule,
                            toolSetting,
                            serverAutoApprove,
                            chatMode,
                            grant,
                            allowRule,
                            readOnlyHint,
                            serverTrusted,
                          };
}
