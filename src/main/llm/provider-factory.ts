import type { ProviderConfig } from '../../shared/llm';
import { createAnthropicProvider } from './anthropic-provider';
import { createDemoProvider } from './demo-provider';
import { createGeminiProvider } from './gemini-provider';
import { createOpenAiProvider } from './openai-provider';
import type { LlmProvider } from './provider';

/** The adapter for one configured provider, with its key (from the secret store) and base URL. */
export function createProviderFromConfig(config: ProviderConfig, apiKey: string | undefined): LlmProvider {
  const common = { label: config.label, ...(apiKey === undefined ? {} : { apiKey }), ...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }) };
  switch (config.kind) {
    case 'openai':
    case 'openai-compatible':
      return createOpenAiProvider({ kind: config.kind, ...common });
    case 'anthropic':
      return createAnthropicProvider(common);
    case 'gemini':
      return createGeminiProvider(common);
    case 'demo':
      return createDemoProvider();
  }
}
