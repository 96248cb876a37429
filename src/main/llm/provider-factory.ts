import type { ProviderConfig, ProviderKind } from '../../shared/llm';
import { createDemoProvider } from './demo-provider';
import type { LlmProvider } from './provider';

/**
 * The adapter for one configured provider, with its key (from the secret store) and base URL. The SDK behind an
 * adapter (openai, @anthropic-ai/sdk, @google/genai: about 0.2–0.4 s of CPU each to load) loads on the provider's
 * first use, so that a command or a start that sends nothing never pays for it (docs/dev/benchmarks.md, cli-start).
 */
export function createProviderFromConfig(config: ProviderConfig, apiKey: string | undefined): LlmProvider {
  const common = {
    label: config.label,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }),
  };
  switch (config.kind) {
    case 'openai':
    case 'openai-compatible':
      return lazyProvider(config.kind, async () =>
        (await import('./openai-provider')).createOpenAiProvider({
          kind: config.kind as 'openai' | 'openai-compatible',
          ...common,
        }),
      );
    case 'anthropic':
      return lazyProvider(config.kind, async () =>
        (await import('./anthropic-provider')).createAnthropicProvider(common),
      );
    case 'gemini':
      return lazyProvider(config.kind, async () => (await import('./gemini-provider')).createGeminiProvider(common));
    case 'demo':
      return createDemoProvider();
  }
}

/** A provider whose adapter (and SDK) is loaded on first use; the same adapter from then on. */
function lazyProvider(kind: ProviderKind, load: () => Promise<LlmProvider>): LlmProvider {
  let adapter: Promise<LlmProvider> | undefined;
  const loaded = (): Promise<LlmProvider> => (adapter ??= load());
  return {
    kind,
    async *generate(request, signal) {
      yield* (await loaded()).generate(request, signal);
    },
    listModels: async (signal) => (await loaded()).listModels(signal),
    loaded: async () => {
      await loaded();
    },
  };
}
