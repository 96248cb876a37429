// The words for an organisation's identity locks (docs/user/organisation-policy.md, "Naming a server by what it runs").
import { describe, expect, it } from 'vitest';
import { ManagedIdentityLockSchema } from './approval';
import { identityLockWords } from './identity-lock-words';

describe('identityLockWords', () => {
  it('names every part the lock matches and every setting it locks', () => {
    const lock = ManagedIdentityLockSchema.parse({
      serverIdentity: { command: 'npx', package: '@acme/*', url: 'https://mcp.acme.test/mcp' },
      autoApprove: false,
      sampling: 'deny',
      samplingTokenBudget: 20000,
      tools: { write_file: 'always-ask' },
    });
    expect(identityLockWords(lock)).toBe(
      "servers running command 'npx' and package '@acme/*' and URL 'https://mcp.acme.test/mcp': auto-approve: off; " +
        'sampling: deny; sampling budget: 20,000 tokens per chat; tool write_file: always-ask',
    );
  });
});
