import { z } from './zod';
import type { ResolutionOutcome, ToolCallDecision, Verdict } from './decisions';
import { ResolutionOutcomeSchema, ToolCallDecisionSchema, VerdictSchema } from './decision-schemas';
import { CHAT_APPROVAL_MODES, GLOBAL_APPROVAL_MODES, TOOL_APPROVAL_SETTINGS } from './closed-sets';
import { settingsRecord } from './setting-names';
import { AuditSinkSchema } from './audit-shipping';
import { ChatIdSchema } from './chat';
import { MAX_SAMPLING_TOKEN_BUDGET, SamplingPolicySchema } from './server-request-views';
import { IdentityChangeSchema } from './server-identity';
import { JsonSchemaObjectSchema, ToolAnnotationsSchema, ToolCallSchema } from './tool';

// ── Policy settings (the `approvals` section of the settings document) ──────────────────────────

/**
 * The global switch. `ask` asks before every call no rule or setting allows; the middle mode also
 * lets read-only tools of servers whose annotations you trust run; `never-ask` turns approvals off
 * (tools run as they would without this feature) and is shown as a warning wherever approvals are.
 */
export const GlobalApprovalModeSchema = z.enum(GLOBAL_APPROVAL_MODES);
export type GlobalApprovalMode = z.infer<typeof GlobalApprovalModeSchema>;

/**
 * Where a server's trust lives now. Settings files before version 2 kept it here as `trustAnnotations`
 * (the migration moves it); a file or a `policy.update` that still names it is refused with this message.
 */
export const TRUST_FLAG_MOVED_MESSAGE =
  "a server's trust is no longer an approval setting: it is `mcpServers.<name>.trusted` in settings.json, changed with mcp.edit { name, trusted }";
const MovedTrustFlagSchema = z.never({ error: TRUST_FLAG_MOVED_MESSAGE }).optional();

/**
 * Per server: `autoApprove` runs all its tools without asking (seed 003's bypass). Whether its
 * annotations (readOnlyHint) count is the server's `trusted` flag in `mcpServers`, not a policy setting.
 */
export const ServerApprovalSettingsSchema = z.strictObject({
  autoApprove: z.boolean().default(false),
  trustAnnotations: MovedTrustFlagSchema,
  /** May the server sample the chat's model (docs/user/server-requests.md): ask (the default), allow, or deny. */
  sampling: SamplingPolicySchema.optional(),
  /** The most tokens the model may write for this server in one chat; the default when absent. */
  samplingTokenBudget: z.number().int().min(0).max(MAX_SAMPLING_TOKEN_BUDGET).optional(),
});
export type ServerApprovalSettings = z.infer<typeof ServerApprovalSettingsSchema>;

/** Per tool; `inherit` defers to the server setting, then the global one (tool > server > global). */
export const ToolApprovalSettingSchema = z.enum(TOOL_APPROVAL_SETTINGS);
export type ToolApprovalSetting = z.infer<typeof ToolApprovalSettingSchema>;

export { VerdictSchema };
/** A rule's effect is a verdict. */
export const RuleEffectSchema = VerdictSchema;
export type RuleEffect = Verdict;

export const RULE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const RuleIdSchema = z
  .string()
  .regex(RULE_ID_PATTERN, 'must be 1–64 letters, digits, dots, dashes or underscores');

/** Bounds that keep a policy cheap to evaluate; a regex longer than this is refused on save. */
export const RULE_LIMITS = {
  rules: 5_000,
  matchersPerRule: 16,
  globLength: 512,
  regexLength: 256,
  valueLength: 4_096,
  pointerLength: 512,
};

/**
 * One condition on the call's arguments: the value at `pointer` (RFC 6901, e.g. `/path`) must match.
 * `glob` is path-like (`**` spans `/`); `regex` is a JavaScript regular expression searched anywhere in
 * the value (anchor it with ^…$); `equals` compares the JSON value exactly. When the pointer selects an
 * array, its elements are tested. `one-of` compares the whole value (an object or a list too) with each of the values
 * listed in `value`, a JSON array; its pointer may be `""`, the whole arguments, so that an allow rule allows exactly
 * the calls listed and nothing else (docs/user/approvals.md "Which setting wins").
 */
export const ArgumentMatcherSchema = z.strictObject({
  pointer: z.string().max(RULE_LIMITS.pointerLength),
  match: z.enum(['glob', 'regex', 'equals', 'one-of']),
  value: z.union([z.string().max(RULE_LIMITS.valueLength), z.number(), z.boolean(), z.null()]),
});
export type ArgumentMatcher = z.infer<typeof ArgumentMatcherSchema>;

/** A pattern rule: deny beats ask beats allow; within one effect the first rule in the list decides. */
export const ApprovalRuleSchema = z.strictObject({
  id: RuleIdSchema,
  effect: RuleEffectSchema,
  /** Glob over the server's key in `mcpServers`. */
  server: z.string().min(1).max(RULE_LIMITS.globLength),
  /** Glob over the tool's name. */
  tool: z.string().min(1).max(RULE_LIMITS.globLength),
  /** All must match. */
  args: z.array(ArgumentMatcherSchema).max(RULE_LIMITS.matchersPerRule).optional(),
  note: z.string().max(500).optional(),
});
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** A rule as a person adds it: the id is made up when missing. */
export const ApprovalRuleDraftSchema = ApprovalRuleSchema.extend({ id: RuleIdSchema.optional() });
export type ApprovalRuleDraft = z.infer<typeof ApprovalRuleDraftSchema>;

export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300;
/** A week: long enough for any person, short enough for one Node timer. */
export const MAX_APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 60 * 60;

const uniqueRuleIds = (rules: readonly { id: string }[], context: z.RefinementCtx): void => {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (seen.has(rule.id))
      context.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `the id '${rule.id}' is used by an earlier rule`,
      });
    seen.add(rule.id);
  });
};

/** The user's approval policy. The defaults ask before every tool call: nothing is auto-allowed on a fresh install. */
export const ApprovalPolicySchema = z.strictObject({
  mode: GlobalApprovalModeSchema.default('ask'),
  /** How long a call waits for a person before it is resolved as `timeout`; 0 waits forever. */
  timeoutSeconds: z.number().int().min(0).max(MAX_APPROVAL_TIMEOUT_SECONDS).default(DEFAULT_APPROVAL_TIMEOUT_SECONDS),
  servers: settingsRecord(ServerApprovalSettingsSchema).default({}),
  /** server → tool → setting. */
  tools: settingsRecord(settingsRecord(ToolApprovalSettingSchema)).default({}),
  rules: z.array(ApprovalRuleSchema).max(RULE_LIMITS.rules).superRefine(uniqueRuleIds).default([]),
});
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;
/**
 * What `ApprovalPolicySchema.parse({})` gives, written out: a parse when this module loads would make zod probe for
 * eval before a page's entry turns that off (a CSP violation in the renderer); defaults.test.ts keeps the two equal.
 */
export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = {
  mode: 'ask',
  timeoutSeconds: DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  servers: {},
  tools: {},
  rules: [],
};

/**
 * The `approvals` section as settings.json holds it: only what the person set. A setting left out takes the
 * organisation's default, then the built-in one (docs/user/organisation-policy.md).
 */
export const StoredApprovalPolicySchema = z.strictObject({
  mode: GlobalApprovalModeSchema.optional(),
  timeoutSeconds: z.number().int().min(0).max(MAX_APPROVAL_TIMEOUT_SECONDS).optional(),
  servers: settingsRecord(ServerApprovalSettingsSchema).optional(),
  tools: settingsRecord(settingsRecord(ToolApprovalSettingSchema)).optional(),
  rules: z.array(ApprovalRuleSchema).max(RULE_LIMITS.rules).superRefine(uniqueRuleIds).optional(),
});
export type StoredApprovalPolicy = z.infer<typeof StoredApprovalPolicySchema>;

/**
 * A partial change, applied as one: every part is validated before anything is saved. Servers map to
 * `null` to forget their settings; a tool set to `inherit` is forgotten. Rule operations run in the
 * order remove, update (by id), add (at the end, or at `index`), then `order` (every id, once).
 */
export const PolicyUpdateSchema = z.strictObject({
  mode: GlobalApprovalModeSchema.optional(),
  timeoutSeconds: z.number().int().min(0).max(MAX_APPROVAL_TIMEOUT_SECONDS).optional(),
  servers: settingsRecord(
    z
      .strictObject({
        autoApprove: z.boolean().optional(),
        trustAnnotations: MovedTrustFlagSchema,
        sampling: SamplingPolicySchema.optional(),
        samplingTokenBudget: z.number().int().min(0).max(MAX_SAMPLING_TOKEN_BUDGET).optional(),
      })
      .nullable(),
  ).optional(),
  tools: settingsRecord(settingsRecord(ToolApprovalSettingSchema)).optional(),
  rules: z
    .strictObject({
      remove: z.array(RuleIdSchema).optional(),
      update: z.array(ApprovalRuleSchema).optional(),
      add: z.array(ApprovalRuleDraftSchema).optional(),
      /** Where the added rules go (0-based); the end when missing. */
      index: z.number().int().min(0).optional(),
      order: z.array(RuleIdSchema).optional(),
    })
    .optional(),
});
export type PolicyUpdate = z.infer<typeof PolicyUpdateSchema>;

// ── Managed policy (read-only, from the organisation) ───────────────────────────────────────────

/**
 * An organisation's rule may name a server by what it runs as well as by name (docs/user/organisation-policy.md,
 * "Naming a server by what it runs"): globs over the server's command (its path or its file name), the package it
 * runs, and the URL (origin and path) it is reached at. Every one given must match, and so must `server`.
 */
export const ServerIdentityMatcherSchema = z
  .strictObject({
    command: z.string().min(1).max(RULE_LIMITS.globLength).optional(),
    package: z.string().min(1).max(RULE_LIMITS.globLength).optional(),
    url: z.string().min(1).max(RULE_LIMITS.globLength).optional(),
  })
  .refine(
    (matcher) => matcher.command !== undefined || matcher.package !== undefined || matcher.url !== undefined,
    'names a command, a package or a url',
  );
export type ServerIdentityMatcher = z.infer<typeof ServerIdentityMatcherSchema>;

/** The organisation's rules deny; `effect` may be left out. */
export const ManagedRuleSchema = ApprovalRuleSchema.extend({
  effect: z.literal('deny', 'a managed policy holds deny rules only').default('deny'),
  serverIdentity: ServerIdentityMatcherSchema.optional(),
});
export type ManagedRule = z.infer<typeof ManagedRuleSchema>;

/** An allow or ask rule the organisation sets, as a default or locked (its deny rules are the top-level `rules`). */
export const ManagedSettingsRuleSchema = ApprovalRuleSchema.extend({
  effect: VerdictSchema.exclude(
    ['deny'],
    'a rule in defaults or locked allows or asks; deny rules go in the top-level rules',
  ),
  serverIdentity: ServerIdentityMatcherSchema.optional(),
});
export type ManagedSettingsRule = z.infer<typeof ManagedSettingsRuleSchema>;

/** An organisation's lock on the servers that run what `serverIdentity` names: their server setting and tools' settings. */
export const ManagedIdentityLockSchema = z
  .strictObject({
    serverIdentity: ServerIdentityMatcherSchema,
    autoApprove: z.boolean().optional(),
    sampling: SamplingPolicySchema.optional(),
    samplingTokenBudget: z.number().int().min(0).max(MAX_SAMPLING_TOKEN_BUDGET).optional(),
    tools: settingsRecord(z.enum(['auto-approve', 'always-ask'])).optional(),
  })
  .refine(
    (lock) =>
      lock.autoApprove !== undefined ||
      lock.sampling !== undefined ||
      lock.samplingTokenBudget !== undefined ||
      lock.tools !== undefined,
    { message: 'name at least one of autoApprove, sampling, samplingTokenBudget, tools' },
  );
export type ManagedIdentityLock = z.infer<typeof ManagedIdentityLockSchema>;

/** The settings of the person's policy an organisation may set, each optional. */
export const MANAGED_SETTING_KEYS = ['mode', 'timeoutSeconds', 'servers', 'tools', 'rules', 'auditShipping'] as const;
export type ManagedSettingKey = (typeof MANAGED_SETTING_KEYS)[number];

/**
 * Approval settings as the organisation sets them: as `defaults` (they apply until the person changes that setting) or
 * `locked` (the person sees them and cannot change them). `servers` and `tools` name single entries; `auditShipping`
 * holds sinks (locked sinks always ship: docs/user/organisation-policy.md).
 */
export const ManagedSettingsSchema = z.strictObject({
  mode: GlobalApprovalModeSchema.optional(),
  timeoutSeconds: z.number().int().min(0).max(MAX_APPROVAL_TIMEOUT_SECONDS).optional(),
  /**
   * Per server, each part on its own: `autoApprove`, and its sampling (`sampling`, `samplingTokenBudget`;
   * docs/user/server-requests.md). What is not named stays the person's.
   */
  servers: settingsRecord(
    z
      .strictObject({
        autoApprove: z.boolean().optional(),
        sampling: SamplingPolicySchema.optional(),
        samplingTokenBudget: z.number().int().min(0).max(MAX_SAMPLING_TOKEN_BUDGET).optional(),
      })
      .refine((settings) => Object.keys(settings).length > 0, {
        message: 'name at least one of autoApprove, sampling, samplingTokenBudget',
      }),
  ).optional(),
  tools: settingsRecord(settingsRecord(z.enum(['auto-approve', 'always-ask']))).optional(),
  /**
   * Locks on every server that runs what a matcher names, whatever it is called (docs/user/organisation-policy.md,
   * "Naming a server by what it runs"): a rename, a removal and the same command added under another name never
   * escape them. In `locked` only.
   */
  serversByIdentity: z.array(ManagedIdentityLockSchema).max(64).optional(),
  rules: z.array(ManagedSettingsRuleSchema).max(RULE_LIMITS.rules).superRefine(uniqueRuleIds).optional(),
  auditShipping: z
    .strictObject({ sinks: z.array(AuditSinkSchema).max(8) })
    .refine((shipping) => new Set(shipping.sinks.map((sink) => sink.id)).size === shipping.sinks.length, {
      message: 'every sink needs its own id',
      path: ['sinks'],
    })
    .optional(),
});
export type ManagedSettings = z.infer<typeof ManagedSettingsSchema>;

const HttpsUrlSchema = z.url({ protocol: /^https$/, error: 'must be an https URL' });
const IssuerUrlSchema = z.url({ protocol: /^https?$/, error: "must be the authorization server's issuer URL" });

/**
 * The organisation's OAuth client settings: the URL of its client metadata document (a URL-based client id, used
 * where an authorization server supports it), and clients it registered beforehand, by authorization server issuer.
 */
/**
 * The organisation's identity provider for cross-app access (docs/user/organisation-policy.md#oauth), for the HTTP
 * servers an entry names: by name (`server`, a glob that follows renames as a rule's does) and/or by what they are
 * reached at (`serverIdentity`). `locked`: it applies whatever the person set, and the person cannot change it;
 * otherwise it applies to a named server that has no identity provider of its own. `idpClientSecret` is a secret: it
 * is used for the exchange and shown nowhere.
 */
export const ManagedCrossAppAccessSchema = z
  .strictObject({
    server: z.string().min(1).max(RULE_LIMITS.globLength).optional(),
    serverIdentity: ServerIdentityMatcherSchema.optional(),
    idpIssuer: IssuerUrlSchema,
    idpClientId: z.string().min(1).max(500),
    idpTokenEndpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    idpClientSecret: z.string().min(1).max(2000).optional(),
    locked: z.boolean().default(false),
  })
  .refine((entry) => entry.server !== undefined || entry.serverIdentity !== undefined, {
    message: 'name the servers it is for: server (a name glob), serverIdentity, or both',
  });
export type ManagedCrossAppAccess = z.infer<typeof ManagedCrossAppAccessSchema>;

/**
 * One of the organisation's identity providers as the person sees it (`policy.get`; docs/user/organisation-policy.md#oauth):
 * the entry without its client's secret, only whether the organisation gives one.
 */
export const ManagedCrossAppAccessViewSchema = z.object({
  server: z.string().optional(),
  serverIdentity: ServerIdentityMatcherSchema.optional(),
  idpIssuer: z.string(),
  idpClientId: z.string(),
  idpTokenEndpoint: z.string().optional(),
  clientSecret: z.boolean(),
  locked: z.boolean(),
});
export type ManagedCrossAppAccessView = z.infer<typeof ManagedCrossAppAccessViewSchema>;

export const ManagedOAuthSchema = z.strictObject({
  clientMetadataUrl: HttpsUrlSchema.optional(),
  clients: z
    .record(
      IssuerUrlSchema,
      z.strictObject({ clientId: z.string().min(1).max(500), clientSecret: z.string().min(1).max(2000).optional() }),
    )
    .optional(),
  /** The identity provider of cross-app access, for the servers each entry names; the first that names one applies. */
  crossAppAccess: z.array(ManagedCrossAppAccessSchema).max(64).optional(),
});
export type ManagedOAuth = z.infer<typeof ManagedOAuthSchema>;

/**
 * The organisation's policy file (WORKBENCH_MANAGED_POLICY, or the OS location: docs/user/organisation-policy.md).
 * Unknown keys are refused: a misspelt switch must not be silently ignored.
 */
/**
 * The organisation's limits on contained servers (docs/user/sandbox.md#organisation): whether a server may run
 * unconfined where no sandbox can run, what a profile may grant, and whether the person may change profiles.
 */
export const ManagedSandboxSchema = z.strictObject({
  /** No server starts unconfined, whatever the person allows. */
  requireContainment: z.boolean().default(false),
  /** Servers may start unconfined where no sandbox can run, without each being allowed by the person. */
  allowUnconfined: z.boolean().default(false),
  /** A profile may grant network destinations. */
  allowNetwork: z.boolean().default(true),
  /** A profile may grant folders in the person's home folder (the app's own data folder aside). */
  allowHomeFolder: z.boolean().default(true),
  /** Profiles are as shipped: the person cannot widen or narrow them. */
  lockProfiles: z.boolean().default(false),
});
export type ManagedSandbox = z.infer<typeof ManagedSandboxSchema>;

export const ManagedPolicySchema = z
  .strictObject({
    rules: z.array(ManagedRuleSchema).max(RULE_LIMITS.rules).superRefine(uniqueRuleIds).default([]),
    sandbox: ManagedSandboxSchema.optional(),
    /** When true, the global and per-chat "never ask" are ignored. */
    disallowNeverAsk: z.boolean().default(false),
    defaults: ManagedSettingsSchema.default({}),
    locked: ManagedSettingsSchema.default({}),
    /** How AI Workbench identifies itself to OAuth authorization servers (docs/user/organisation-policy.md#oauth). */
    oauth: ManagedOAuthSchema.optional(),
  })
  .superRefine((policy, context) => {
    if (policy.defaults.serversByIdentity !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['defaults', 'serversByIdentity'],
        message: 'locks by what a server runs belong in locked',
      });
    }
    if (policy.disallowNeverAsk && policy.locked.mode === 'never-ask') {
      context.addIssue({
        code: 'custom',
        path: ['locked', 'mode'],
        message: 'cannot be never-ask when disallowNeverAsk is true',
      });
    }
  });
export type ManagedPolicy = z.infer<typeof ManagedPolicySchema>;

export const PolicyWarningSchema = z.object({
  kind: z.enum(['approvals-off', 'never-ask-ignored', 'server-auto-approve', 'rule-never-matches', 'rule-shadowed']),
  message: z.string(),
  serverName: z.string().optional(),
  /** The rule-… kinds: the person's rule that never decides, and (shadowed) the rule that always decides first. */
  ruleId: z.string().optional(),
  byRuleId: z.string().optional(),
});
export type PolicyWarning = z.infer<typeof PolicyWarningSchema>;

/**
 * What `policy.get` answers: the policy in force (the person's, over the organisation's defaults, under its locks), the
 * organisation's (when there is one), and what to warn about.
 */
export const PolicyViewSchema = z.object({
  policy: ApprovalPolicySchema,
  managed: z
    .object({
      file: z.string(),
      /** `env`: WORKBENCH_MANAGED_POLICY named it; `system`: the OS's managed-settings location. */
      source: z.enum(['env', 'system']),
      rules: z.array(ManagedRuleSchema),
      disallowNeverAsk: z.boolean(),
      defaults: ManagedSettingsSchema,
      locked: ManagedSettingsSchema,
      /** The settings where the organisation's default is in force: the person has not changed them. */
      defaulted: z.array(z.enum(MANAGED_SETTING_KEYS)),
      /** The identity providers HTTP servers sign in through (cross-app access), for the servers each names. */
      crossAppAccess: z.array(ManagedCrossAppAccessViewSchema).optional(),
    })
    .nullable(),
  warnings: z.array(PolicyWarningSchema),
});
export type PolicyView = z.infer<typeof PolicyViewSchema>;

// ── Decisions ───────────────────────────────────────────────────────────────────────────────────

export const ChatApprovalModeSchema = z.enum(CHAT_APPROVAL_MODES);
export type ChatApprovalMode = z.infer<typeof ChatApprovalModeSchema>;

/** A decision's outcome is a verdict. */
export const DecisionOutcomeSchema = VerdictSchema;
export type DecisionOutcome = Verdict;

/** The pipeline's steps (docs/dev/architecture.md "The decision pipeline"), as the source of a decision. */
export const DecisionSourceKindSchema = z.enum([
  'managed-deny-rule',
  'deny-rule',
  'approvals-off',
  'chat-grant',
  'chat-mode',
  'ask-rule',
  'allow-rule',
  'tool-setting',
  'server-setting',
  'global-setting',
  'trusted-read-only',
  'default',
]);
export type DecisionSourceKind = z.infer<typeof DecisionSourceKindSchema>;

/** Machine-readable: which rule, setting or grant decided. */
export const DecisionSourceSchema = z.object({
  kind: DecisionSourceKindSchema,
  ruleId: z.string().optional(),
  /** The user's rules: the rule's place in the list, from 1. */
  ruleNumber: z.number().int().positive().optional(),
  serverName: z.string().optional(),
  toolName: z.string().optional(),
  /** The setting's value (`auto-approve`, `always-ask`, `never-ask`…). */
  setting: z.string().optional(),
  /** Chat grants: when "Allow for this chat" was chosen (ms since the epoch). */
  grantedAt: z.number().optional(),
});
export type DecisionSource = z.infer<typeof DecisionSourceSchema>;

export const PolicyDecisionSchema = z.object({
  outcome: DecisionOutcomeSchema,
  source: DecisionSourceSchema,
  /** In words a person understands: "Denied by your rule #3: Files write_* when /path matches /etc/**". */
  reason: z.string(),
  /** A chat grant existed for an earlier definition of this tool: the card says it changed. */
  definitionChanged: z.boolean(),
  /**
   * Set when an explicit ask decided (an ask rule, a tool set to "always ask", a chat set to "always ask"):
   * names that setting in words, for the card and the CLI to show beside "Allow for this chat", which is
   * recorded but cannot silence it (docs/dev/architecture.md, the decision pipeline, step 3). Absent in requests stored before it existed.
   */
  keepsAsking: z.string().optional(),
  /**
   * The server runs something else than what its settings, grants and rules were made for (its launch spec changed,
   * docs/user/approvals.md "A server's identity"): what it ran then and what it runs now. None of them allows its calls.
   */
  identityChanged: IdentityChangeSchema.optional(),
});
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

/** One step `explain` looked at, in pipeline order. */
export const ConsideredStepSchema = z.object({
  step: z.number().int().min(1).max(9),
  kind: DecisionSourceKindSchema,
  result: z.enum(['decided', 'passed', 'ignored']),
  detail: z.string(),
});
export type ConsideredStep = z.infer<typeof ConsideredStepSchema>;

export const PolicyExplainInputSchema = z.strictObject({
  server: z.string().min(1),
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).optional(),
  chatId: ChatIdSchema.optional(),
});
export const PolicyExplanationSchema = PolicyDecisionSchema.extend({
  /** Whether a connected server offers this tool (annotations and grants need its definition). */
  toolKnown: z.boolean(),
  considered: z.array(ConsideredStepSchema),
});
export type PolicyExplanation = z.infer<typeof PolicyExplanationSchema>;

// ── Chat grants ("Allow for this chat") ─────────────────────────────────────────────────────────

export const ChatGrantSchema = z.object({
  chatId: ChatIdSchema,
  serverName: z.string(),
  toolName: z.string(),
  /** The definition the person allowed; a changed tool is asked about again. */
  definitionHash: z.string(),
  grantedAt: z.number().int().nonnegative(),
});
export type ChatGrant = z.infer<typeof ChatGrantSchema>;

export const GrantsListInputSchema = z.strictObject({ chatId: ChatIdSchema.optional() }).optional();
export const GrantsListOutputSchema = z.object({ grants: z.array(ChatGrantSchema) });
export const GrantRevokeInputSchema = z.strictObject({
  chatId: ChatIdSchema,
  server: z.string().min(1),
  tool: z.string().min(1),
});
export const GrantRevokeOutputSchema = z.object({ revoked: ChatGrantSchema });
export const GrantsChangeSchema = z.object({ kind: z.enum(['granted', 'revoked']), grant: ChatGrantSchema });
export type GrantsChange = z.infer<typeof GrantsChangeSchema>;

export const ChatApprovalModeInputSchema = z.strictObject({ chatId: ChatIdSchema });
export const ChatApprovalModeSetInputSchema = z.strictObject({ chatId: ChatIdSchema, mode: ChatApprovalModeSchema });
export const ChatApprovalModeOutputSchema = z.object({ chatId: ChatIdSchema, mode: ChatApprovalModeSchema });

// ── Calls that wait for a person (seed 000's message flow) ──────────────────────────────────────

/** A call that needs a person, with what the approval card shows: the tool's annotations, schema, hash, and why it asks. */
export const ToolCallRequestSchema = ToolCallSchema.extend({
  title: z.string().optional(),
  description: z.string().optional(),
  annotations: ToolAnnotationsSchema.optional(),
  definitionHash: z.string(),
  /** For schema-aware editing of the arguments (seed 004). */
  inputSchema: JsonSchemaObjectSchema,
  decision: PolicyDecisionSchema,
});
export type ToolCallRequest = z.infer<typeof ToolCallRequestSchema>;

/** Seed 000's answers, derived from their resolutions in src/shared/decisions.ts. */
export { ToolCallDecisionSchema };
export type { ToolCallDecision };

// ── Remember from the card (docs/user/approvals.md) ──────────────────────────────────────────────

/**
 * What a person may ask the policy to remember while allowing one call: the tool's own setting to auto-approve,
 * an allow rule for calls like this one (the call's server and tool, with argument conditions the person may edit),
 * or the server set to run all its tools without asking (seed 003's bypass). Checked in main before anything
 * changes (docs/dev/architecture.md "Remember from the card"); the call itself is allowed once.
 */
export const RememberActionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('tool') }),
  z.strictObject({ kind: z.literal('server') }),
  z.strictObject({
    kind: z.literal('rule'),
    /** Chosen by the front end so that Settings can find the rule again (highlight, Undo). */
    id: RuleIdSchema,
    args: z.array(ArgumentMatcherSchema).max(RULE_LIMITS.matchersPerRule),
  }),
]);
export type RememberAction = z.infer<typeof RememberActionSchema>;
export type RememberKind = RememberAction['kind'];

/** Whether one remember action is offered for a call, and in words what it would change and where to undo it. */
export const RememberOfferSchema = z.object({
  kind: z.enum(['tool', 'server', 'rule']),
  offered: z.boolean(),
  /** Why it is not offered (a deny rule catches the call, the organisation locked it, an ask rule overlaps…). */
  refusal: z.string().optional(),
  /** "The tool setting of Files.write_file becomes 'Auto-approve': …" */
  change: z.string(),
  /** "Settings › Approvals › Servers and tools: set it back to 'Use server setting'." */
  undo: z.string(),
});
export type RememberOffer = z.infer<typeof RememberOfferSchema>;

export const RememberOptionsInputSchema = z.strictObject({
  chatId: ChatIdSchema,
  toolCallId: z.string().min(1),
  /** The arguments the card shows (an edit), when they are not the model's. */
  args: z.record(z.string(), z.unknown()).optional(),
  /** A rule the person edited, to check before saving; the suggestion when missing. */
  rule: z.array(ArgumentMatcherSchema).max(RULE_LIMITS.matchersPerRule).optional(),
});
export const RememberOptionsSchema = z.object({
  tool: RememberOfferSchema,
  server: RememberOfferSchema,
  rule: RememberOfferSchema.extend({ args: z.array(ArgumentMatcherSchema) }),
});
export type RememberOptions = z.infer<typeof RememberOptionsSchema>;

/** A person's answer to one pending call. Other fields (a whole ToolCallRequest echoed back) are dropped, never trusted. */
export const ToolCallApprovalSchema = z.object({
  toolCallId: z.string().min(1),
  decision: ToolCallDecisionSchema,
  /** Allow decisions only; checked against the tool's input schema. */
  editedArgs: z.record(z.string(), z.unknown()).optional(),
  /** Why the person denied; kept in the audit log and told to the model. */
  reason: z.string().max(2_000).optional(),
  /** Allow decisions only: what the policy should remember from this answer (docs/user/approvals.md). */
  remember: RememberActionSchema.optional(),
});
export type ToolCallApproval = z.infer<typeof ToolCallApprovalSchema>;

/** The `approval` message: one answer for every call pending in the chat. */
export const ApprovalMessageSchema = z.object({ toolCallApprovals: z.array(ToolCallApprovalSchema).min(1) });
export type ApprovalMessage = z.infer<typeof ApprovalMessageSchema>;

export const PendingApprovalSchema = z.object({
  chatId: ChatIdSchema,
  exchangeId: z.string().nullable(),
  request: ToolCallRequestSchema,
  /** ms since the epoch. */
  createdAt: z.number().int(),
  /** When it resolves as `timeout`; null waits forever. */
  expiresAt: z.number().int().nullable(),
});
export type PendingApproval = z.infer<typeof PendingApprovalSchema>;

export { ResolutionOutcomeSchema };
export type { ResolutionOutcome };

/** How a pending call ended. Only `allow_*` may run, with `args` (the edited ones when the person edited them). */
export const ApprovalResolutionSchema = z.object({
  chatId: ChatIdSchema,
  exchangeId: z.string().nullable(),
  toolCallId: z.string(),
  serverName: z.string(),
  toolName: z.string(),
  outcome: ResolutionOutcomeSchema,
  actor: z.enum(['user', 'system']),
  args: z.record(z.string(), z.unknown()),
  edited: z.boolean(),
  reason: z.string().nullable(),
  decidedAt: z.number().int(),
});
export type ApprovalResolution = z.infer<typeof ApprovalResolutionSchema>;

/** One chat's waiting calls, or every chat's, oldest first, when no chat is named (the badges and the window title). */
export const ApprovalsPendingInputSchema = z.strictObject({ chatId: ChatIdSchema.optional() });
export const ApprovalsPendingOutputSchema = z.object({ approvals: z.array(PendingApprovalSchema) });

export const ApprovalsChangeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('pending'), chatId: ChatIdSchema, approvals: z.array(PendingApprovalSchema) }),
  z.object({ kind: z.literal('resolved'), chatId: ChatIdSchema, resolutions: z.array(ApprovalResolutionSchema) }),
  z.object({ kind: z.literal('chat-mode'), chatId: ChatIdSchema, mode: ChatApprovalModeSchema }),
]);
export type ApprovalsChange = z.infer<typeof ApprovalsChangeSchema>;
