import {
  KINDS_THAT_NEED_A_KEY,
  PROVIDER_KIND_LABELS,
  ProvidersSettingsSchema,
  type ModelInfo,
  type ProviderAddInput,
  type ProviderConfig,
  type ProviderInfo,
  type ProviderProbeInput,
  type ProviderTestOutput,
  type ProviderUpdateInput,
} from '../../shared/llm';
import { RESERVED_SETTING_NAMES } from '../../shared/setting-names';
import { WorkbenchError } from '../errors';
import type { EventHub } from '../event-hub';
import type { SecretStore } from '../settings/secret-store';
import type { SettingsSection, SettingsStore } from '../settings/settings-store';
import { DEMO_MODEL_ID } from './demo-provider';
import { describeNetworkCause } from './llm-errors';
import { createProviderFromConfig } from './provider-factory';
import type { LlmProvider } from './provider';

export const PROVIDERS_SECTION = 'providers';
export const DEMO_LABEL = PROVIDER_KIND_LABELS.demo;
/** What a fresh install has: the Demo provider, so a person without a key sees the approval flow at once. */
export const DEMO_PROVIDER: ProviderConfig = {
  id: 'demo',
  kind: 'demo',
  label: DEMO_LABEL,
  defaultModel: DEMO_MODEL_ID,
};
/** How long "test connection" waits for the model list. */
export const TEST_CONNECTION_TIMEOUT_MS = 15_000;

/** The secret store key of a provider's API key. */
export function apiKeySecretName(providerId: string): string {
  return `llm.${providerId}.apiKey`;
}

/**
 * The configured LLM providers: their settings (in the `providers` section) and their keys (in the secret store,
 * never in settings.json, never in anything this service returns to a host). Announces every change as
 * `providers.onDidChange`.
 */
/** The host names of this machine's loopback interface (`providers.probeLocal`). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface ProviderService {
  list(): ProviderInfo[];
  /** Throws `not_found` for an unknown id. */
  get(id: string): ProviderInfo;
  /** Throws `invalid_input` for a taken id, a compatible server without a base URL, or a key or URL for the demo. */
  add(input: ProviderAddInput): ProviderInfo;
  /** Fields left out stay; `null` clears (a key: deletes it). Throws `not_found` / `invalid_input`. */
  update(input: ProviderUpdateInput): ProviderInfo;
  /** Removes the provider and its key. Throws `not_found`. */
  remove(id: string): void;
  /** Fetches the model list: `ok` with the count, or the error a person should read. Throws only `not_found`. */
  test(id: string): Promise<ProviderTestOutput>;
  /** The model list; throws the provider's `llm_*` error. */
  models(id: string): Promise<ModelInfo[]>;
  /**
   * Like `test`, for an OpenAI-compatible server on this machine that is not configured yet (the local servers the
   * providers page offers). Throws `invalid_input` for an address that is not loopback: the app does not become a
   * way to probe other machines.
   */
  probeLocal(input: ProviderProbeInput): Promise<ProviderTestOutput>;
  /** The adapter the tool loop generates with. Throws `not_found`, or `llm_bad_key` when a needed key is missing. */
  provider(id: string): LlmProvider;
}

export interface ProviderServiceDependencies {
  settings: SettingsStore;
  secrets: SecretStore;
  events: EventHub;
  /** Builds an adapter for a configuration; tests swap it. */
  createProvider?: (config: ProviderConfig, apiKey: string | undefined) => LlmProvider;
  /** How long "test connection" waits for the model list. */
  testTimeoutMs?: number;
}

export function createProviderService({
  settings,
  secrets,
  events,
  createProvider = createProviderFromConfig,
  testTimeoutMs = TEST_CONNECTION_TIMEOUT_MS,
}: ProviderServiceDependencies): ProviderService {
  const section: SettingsSection<ProviderConfig[]> = settings.section(PROVIDERS_SECTION, ProvidersSettingsSchema, [
    DEMO_PROVIDER,
  ]);
  const cache = new Map<string, { fingerprint: string; provider: LlmProvider }>();

  const hasKey = (id: string): boolean => secrets.keys(apiKeySecretName(id)).includes(apiKeySecretName(id));
  const info = (config: ProviderConfig): ProviderInfo => ({
    ...config,
    hasApiKey: hasKey(config.id),
    apiKeyRequired: KINDS_THAT_NEED_A_KEY.includes(config.kind),
  });
  const find = (id: string): ProviderConfig => {
    const config = section.get().find((provider) => provider.id === id);
    if (!config) throw new WorkbenchError('not_found', `No provider has the id ${id}.`, { id });
    return config;
  };
  const announce = (): void => events.emit('providers.onDidChange', { providers: service.list() });
  const missingKey = (config: ProviderConfig): WorkbenchError =>
    new WorkbenchError('llm_bad_key', `No API key is set for ${config.label}. Add one in the provider's settings.`, {
      provider: config.label,
    });

  const service: ProviderService = {
    list: () => section.get().map(info),
    get: (id) => info(find(id)),
    add(input) {
      const existing = section.get();
      if (input.id !== undefined && existing.some((provider) => provider.id === input.id)) {
        throw new WorkbenchError('invalid_input', `A provider with the id ${input.id} exists already.`, {
          id: input.id,
        });
      }
      const label = input.kind === 'demo' ? DEMO_LABEL : (input.label ?? PROVIDER_KIND_LABELS[input.kind]);
      const config: ProviderConfig = {
        id: input.id ?? uniqueId(label, existing),
        kind: input.kind,
        label,
        ...(input.baseURL === undefined ? {} : { baseURL: input.baseURL }),
        ...(input.defaultModel === undefined
          ? input.kind === 'demo'
            ? { defaultModel: DEMO_MODEL_ID }
            : {}
          : { defaultModel: input.defaultModel }),
      };
      checkShape(config, input.apiKey !== undefined);
      section.update((current) => [...current, config]);
      if (input.apiKey !== undefined) secrets.set(apiKeySecretName(config.id), input.apiKey);
      announce();
      return info(config);
    },
    update(input) {
      const current = find(input.id);
      if (current.kind === 'demo' && input.label !== undefined && input.label !== DEMO_LABEL) {
        throw new WorkbenchError(
          'invalid_input',
          `The Demo provider keeps its label "${DEMO_LABEL}", so nobody takes it for a model.`,
        );
      }
      const next: ProviderConfig = { ...current, ...(input.label === undefined ? {} : { label: input.label }) };
      if (input.baseURL === null) delete next.baseURL;
      else if (input.baseURL !== undefined) next.baseURL = input.baseURL;
      if (input.defaultModel === null) delete next.defaultModel;
      else if (input.defaultModel !== undefined) next.defaultModel = input.defaultModel;
      checkShape(next, typeof input.apiKey === 'string');
      section.update((providers) => providers.map((provider) => (provider.id === next.id ? next : provider)));
      if (input.apiKey === null) secrets.delete(apiKeySecretName(next.id));
      else if (input.apiKey !== undefined) secrets.set(apiKeySecretName(next.id), input.apiKey);
      cache.delete(next.id);
      announce();
      return info(next);
    },
    remove(id) {
      find(id);
      section.update((providers) => providers.filter((provider) => provider.id !== id));
      secrets.delete(apiKeySecretName(id));
      cache.delete(id);
      announce();
    },
    async test(id) {
      const config = find(id);
      if (KINDS_THAT_NEED_A_KEY.includes(config.kind) && !hasKey(id))
        return { ok: false, error: missingKey(config).toData() };
      let timeout: AbortSignal | undefined;
      try {
        const provider = service.provider(id);
        // The time limit is the server's: loading the adapter's SDK first is not part of it.
        await provider.loaded?.();
        timeout = AbortSignal.timeout(testTimeoutMs);
        const models = await provider.listModels(timeout);
        return { ok: true, modelCount: models.length };
      } catch (error) {
        if (timeout?.aborted) {
          const message = `${config.label} did not answer within ${testTimeoutMs / 1000} seconds. Check the address and that the server is running.`;
          return { ok: false, error: { code: 'llm_unreachable', message, details: { provider: config.label } } };
        }
        if (error instanceof WorkbenchError) return { ok: false, error: error.toData() };
        throw error;
      }
    },
    models: (id) => service.provider(id).listModels(),
    async probeLocal({ baseURL, label = 'The server' }) {
      const url = new URL(baseURL);
      if (!LOOPBACK_HOSTS.has(url.hostname)) {
        throw new WorkbenchError(
          'invalid_input',
          `Only a server on this machine can be tested before it is added (localhost, 127.0.0.1 or [::1]), not ${url.hostname}.`,
        );
      }
      const provider = createProvider({ id: 'local-probe', kind: 'openai-compatible', label, baseURL }, undefined);
      await provider.loaded?.();
      const timeout = AbortSignal.timeout(testTimeoutMs);
      try {
        const models = await provider.listModels(timeout);
        return { ok: true, modelCount: models.length };
      } catch (error) {
        const where = `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
        if (timeout.aborted) {
          return {
            ok: false,
            error: {
              code: 'llm_unreachable',
              message: `${label} did not answer at ${where} within ${testTimeoutMs / 1000} seconds.`,
            },
          };
        }
        const refused =
          error instanceof WorkbenchError
            ? (error.details as { cause?: unknown } | undefined)?.cause === 'ECONNREFUSED'
            : describeNetworkCause(error).code === 'ECONNREFUSED';
        if (refused) {
          return {
            ok: false,
            error: { code: 'llm_unreachable', message: `Nothing is listening on ${where} — is ${label} running?` },
          };
        }
        if (error instanceof WorkbenchError) return { ok: false, error: error.toData() };
        throw error;
      }
    },
    provider(id) {
      const config = find(id);
      const apiKey = secrets.get(apiKeySecretName(id));
      if (KINDS_THAT_NEED_A_KEY.includes(config.kind) && apiKey === undefined) throw missingKey(config);
      const fingerprint = JSON.stringify([config, apiKey]);
      const cached = cache.get(id);
      if (cached?.fingerprint === fingerprint) return cached.provider;
      const provider = createProvider(config, apiKey);
      cache.set(id, { fingerprint, provider });
      return provider;
    },
  };
  return service;
}

function checkShape(config: ProviderConfig, settingKey: boolean): void {
  if (config.kind === 'openai-compatible' && config.baseURL === undefined) {
    throw new WorkbenchError(
      'invalid_input',
      'An OpenAI-compatible server needs its base URL, with the version path: http://localhost:11434/v1 for Ollama, http://localhost:1234/v1 for LM Studio.',
      { field: 'baseURL' },
    );
  }
  if (config.kind === 'demo' && (config.baseURL !== undefined || settingKey)) {
    throw new WorkbenchError('invalid_input', 'The Demo provider runs offline: it takes no base URL and no API key.');
  }
}

/** An id made from the label ("My Ollama" → `my-ollama`), with `-2`, `-3`… when it is taken. */
function uniqueId(label: string, existing: readonly ProviderConfig[]): string {
  const base =
    label
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 56) || 'provider';
  // A label such as "Constructor" makes an id no settings map may hold: it gets a suffix like a taken one.
  const taken = new Set([...existing.map((provider) => provider.id), ...RESERVED_SETTING_NAMES]);
  if (!taken.has(base)) return base;
  for (let suffix = 2; ; suffix++) if (!taken.has(`${base}-${suffix}`)) return `${base}-${suffix}`;
}
