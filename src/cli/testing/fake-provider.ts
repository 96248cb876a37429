/** A data folder whose first provider is the scripted fake LLM server, added through the CLI itself. */
import { startFakeLlmServer, type FakeLlmServer, type WireFormat } from '../../main/llm/testing/fake-llm-server';
import { TEST_KEY } from '../../main/llm/testing/drive';
import { sandboxDir } from '../../main/settings/default-servers';
import { cliJson } from './cli-process';

export interface FakeWorkbench {
  readonly home: string;
  readonly sandbox: string;
  readonly fake: FakeLlmServer;
  /** The CLI flags that pick the fake provider. */
  readonly providerFlags: string[];
}

export async function withFakeProvider(home: string, format: WireFormat = 'openai'): Promise<FakeWorkbench> {
  const fake = await startFakeLlmServer();
  await cliJson(
    [
      'providers',
      'add',
      '--kind',
      format,
      '--id',
      'fake',
      '--base-url',
      fake.baseURL(format),
      '--model',
      'fake-large',
      '--api-key-env',
      'AIWB_TEST_KEY',
    ],
    {
      home,
      env: { AIWB_TEST_KEY: TEST_KEY },
    },
  );
  return { home, sandbox: sandboxDir(home), fake, providerFlags: ['--provider', 'fake'] };
}
