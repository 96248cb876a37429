import { z } from './zod';
import { PROVIDER_KINDS } from './closed-sets';
import { settingName } from './setting-names';
import { WorkbenchErrorDataSchema } from './errors';

/**
 * Which wire format and SDK a provider speaks. `openai-compatible` is the OpenAI chat completions format
 * at a base URL of the user's choice (Ollama, LM Studio, vLLM, llama.cpp's server, OpenRouter…);
 * `demo` is the offline scripted provider, which is not an AI model.
 */
export const ProviderKindSchema = z.enum(PROVIDER_KINDS);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

/** What the UI should call each kind. */
export const PROVIDER_KIND_LABELS: Readonly<Record<ProviderKind, string>> = {
  openai: 'OpenAI',
  'openai-compatible': 'OpenAI-compatible server',
  anthropic: 'Anthropic',
  gemini: 'Google Gemini',
  demo: 'Demo — not an AI model',
};

/** Kinds that cannot generate without an API key; an OpenAI-compatible server may not need one (Ollama, LM Studio). */
export const KINDS_THAT_NEED_A_KEY: readonly ProviderKind[] = ['openai', 'anthropic', 'gemini'];

/** A provider's id names it in settings, in chats and in its secret's key (`llm.<id>.apiKey`). */
export const ProviderIdSchema = settingName(
  z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_-]{0,63}$/,
      'must be 1–64 lowercase letters, digits, "-" or "_", starting with a letter or digit',
    ),
);
export type ProviderId = z.infer<typeof ProviderIdSchema>;

export const ProviderLabelSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[^\p{Cc}]*$/u, 'must be a single line without control characters');

/** An http(s) URL; a trailing slash is removed so that the SDKs join paths the same way for every input. */
export const BaseUrlSchema = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''));

export const ModelIdSchema = z.string().trim().min(1, 'must not be empty').max(200);

/**
 * One configured provider as settings.json stores it: never its key (that lives in the secret store).
 * `baseURL` is required for `openai-compatible` and optional otherwise (a proxy or gateway in front of the official API).
 */
export const ProviderConfigSchema = z.object({
  id: ProviderIdSchema,
  kind: ProviderKindSchema,
  label: ProviderLabelSchema,
  baseURL: BaseUrlSchema.optional(),
  defaultModel: ModelIdSchema.optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

/** The `providers` section of settings.json: the configured providers, in the order the UI lists them. */
export const ProvidersSettingsSchema = z.array(ProviderConfigSchema).superRefine((providers, context) => {
  const seen = new Set<string>();
  providers.forEach((provider, index) => {
    if (seen.has(provider.id))
      context.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicates the id "${provider.id}"` });
    seen.add(provider.id);
    if (provider.kind === 'openai-compatible' && provider.baseURL === undefined) {
      context.addIssue({
        code: 'custom',
        path: [index, 'baseURL'],
        message: 'is required for an OpenAI-compatible server',
      });
    }
  });
});

/** A provider as the renderer sees it: its configuration and whether a key is set — never the key. */
export const ProviderInfoSchema = ProviderConfigSchema.extend({
  hasApiKey: z.boolean(),
  /** False only for kinds that can work without a key (OpenAI-compatible servers, the demo). */
  apiKeyRequired: z.boolean(),
});
export type ProviderInfo = z.infer<typeof ProviderInfoSchema>;

/** A model a provider offers, from its model list. */
export const ModelInfoSchema = z.object({
  id: z.string(),
  label: z.string().optional(),
  /** Tokens of input the model accepts, when the provider says. */
  contextWindow: z.number().int().positive().optional(),
  /** Tokens the model can write in one reply, when the provider says. */
  maxOutputTokens: z.number().int().positive().optional(),
});
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

/** Tokens one generation used, as the provider counted them. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Input tokens served from the provider's prompt cache, when it reports them. */
  cachedInputTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * Why a generation ended. `tool_calls`: the model wants tools run; `length`: it hit the output limit;
 * `content_filter`: the provider's safety system stopped it; `malformed_tool_call`: the provider says the model
 * produced a tool call it could not parse (Gemini); `aborted`: the caller cancelled it.
 */
export const FinishReasonSchema = z.enum([
  'stop',
  'tool_calls',
  'length',
  'content_filter',
  'malformed_tool_call',
  'aborted',
  'other',
]);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

// ── contract inputs and outputs ──────────────────────────────────────────────────────────────────

/** A key as a person pastes it: surrounding whitespace is removed. */
const ApiKeyInputSchema = z.string().trim().min(1, 'must not be empty').max(4096);

export const ProvidersListOutputSchema = z.object({ providers: z.array(ProviderInfoSchema) });

export const ProviderAddInputSchema = z.strictObject({
  kind: ProviderKindSchema,
  /** Defaults to the kind's name. */
  label: ProviderLabelSchema.optional(),
  /** Made from the label when omitted, unique among the configured providers. */
  id: ProviderIdSchema.optional(),
  baseURL: BaseUrlSchema.optional(),
  defaultModel: ModelIdSchema.optional(),
  apiKey: ApiKeyInputSchema.optional(),
});
export type ProviderAddInput = z.infer<typeof ProviderAddInputSchema>;

/** Fields left out stay as they are; `null` clears an optional field (and for `apiKey`, deletes the key). */
export const ProviderUpdateInputSchema = z.strictObject({
  id: ProviderIdSchema,
  label: ProviderLabelSchema.optional(),
  baseURL: BaseUrlSchema.nullable().optional(),
  defaultModel: ModelIdSchema.nullable().optional(),
  apiKey: ApiKeyInputSchema.nullable().optional(),
});
export type ProviderUpdateInput = z.infer<typeof ProviderUpdateInputSchema>;

export const ProviderRefInputSchema = z.strictObject({ id: ProviderIdSchema });
export const ProviderRemoveOutputSchema = z.object({ id: ProviderIdSchema });

/** "Test connection": the provider's model list was fetched, or the error a person should read. */
export const ProviderTestOutputSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), modelCount: z.number().int().nonnegative() }),
  z.object({ ok: z.literal(false), error: WorkbenchErrorDataSchema }),
]);
export type ProviderTestOutput = z.infer<typeof ProviderTestOutputSchema>;

export const ProviderModelsOutputSchema = z.object({ models: z.array(ModelInfoSchema) });

/**
 * The local model servers the providers page offers (docs/user/providers.md), each an OpenAI-compatible server on
 * this machine at its default address.
 */
export const LOCAL_MODEL_SERVERS = [
  { id: 'ollama', label: 'Ollama', baseURL: 'http://localhost:11434/v1' },
  { id: 'lm-studio', label: 'LM Studio', baseURL: 'http://localhost:1234/v1' },
] as const;

/** `providers.probeLocal`: is an OpenAI-compatible server listening at this address on this machine (loopback only)? */
export const ProviderProbeInputSchema = z.strictObject({
  baseURL: BaseUrlSchema,
  label: ProviderLabelSchema.optional(),
});
export type ProviderProbeInput = z.infer<typeof ProviderProbeInputSchema>;

export const ProvidersChangeSchema = z.object({ providers: z.array(ProviderInfoSchema) });
