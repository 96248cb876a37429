// The organisation's policy and the policy rows of the audit log at the CLI (docs/user/organisation-policy.md,
// docs/user/audit-log.md): the built CLI as a child process on a temporary data folder, against the real services and
// SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyView } from '../shared/approval';
import type { AuditPage } from '../shared/audit';
import { cliJson, makeHome, runCli } from './testing/cli-process';

let home: string;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe('workbench and the policy rows of the audit log', { timeout: 300_000 }, () => {
  it('records a policy change made at the CLI as a policy row by the CLI; audit query --kind policy shows it', async () => {
    expect((await runCli(['policy', 'set', 'mode', 'never-ask'], { home })).code).toBe(0);
    expect((await runCli(['policy', 'set', 'tool', 'Files', 'write_file', 'always-ask'], { home })).code).toBe(0);
    const page = await cliJson<AuditPage>(['audit', 'query', '--kind', 'policy'], { home });
    expect(page.entries.map((entry) => [entry.kind, entry.actor, entry.decidedBy])).toEqual([
      ['policy', 'cli', 'Approval policy: tool Files.write_file: inherit → always-ask'],
      ['policy', 'cli', 'Approval policy: global mode: ask → never-ask'],
    ]);
    const text = await runCli(['audit', 'query', '--kind', 'policy'], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /1\s+\S+\s+policy\s+changed mode\s+cli\s+Approval policy: global mode: ask → never-ask/,
    );
    expect(text.stdout).toMatch(/policy\s+changed tools\/Files\/write_file\s+cli/);
    expect((await runCli(['audit', 'verify'], { home })).code).toBe(0);
  });

  it("refuses a locked setting with the organisation's reason and exit code 1; the OS location's file applies when no variable names one", async () => {
    const system = path.join(home, 'system-policy.json');
    fs.writeFileSync(
      system,
      JSON.stringify({
        locked: { mode: 'ask', tools: { Files: { write_file: 'always-ask' } } },
        defaults: { timeoutSeconds: 600 },
      }),
    );
    const env = { WORKBENCH_MANAGED_POLICY_SYSTEM_FILE: system };
    const refused = await runCli(['policy', 'set', 'mode', 'never-ask'], { home, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Set by your organisation: the global mode (locked to ask) cannot be changed');
    const tool = await runCli(['policy', 'set', 'tool', 'Files', 'write_file', 'auto-approve'], { home, env });
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain("the tool setting 'Files.write_file' (locked to always-ask)");
    const shown = await runCli(['policy', 'show'], { home, env });
    expect(shown.stdout).toMatch(/locked/i);
    const view = await cliJson<PolicyView>(['policy', 'show'], { home, env });
    expect(view.policy).toMatchObject({ mode: 'ask', timeoutSeconds: 600 });
    expect(view.managed).toMatchObject({ file: system, source: 'system' });
    // A bad file there stops every command, naming the field.
    fs.writeFileSync(system, JSON.stringify({ locked: { mode: 'sometimes' } }));
    const bad = await runCli(['policy', 'show'], { home, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("(from the system's managed-settings location) has an invalid value: locked.mode");
  });

  it('policy show names what each identity lock matches and what it locks, and the servers an identity-named rule covers', async () => {
    const system = path.join(home, 'system-policy.json');
    fs.writeFileSync(
      system,
      JSON.stringify({
        rules: [{ id: 'no-acme-writes', server: '*', tool: 'write_*', serverIdentity: { package: '@acme/*' } }],
        locked: {
          serversByIdentity: [
            {
              serverIdentity: { command: 'npx', package: '@acme/*' },
              autoApprove: false,
              tools: { push: 'always-ask' },
            },
          ],
        },
      }),
    );
    const shown = await runCli(['policy', 'show'], { home, env: { WORKBENCH_MANAGED_POLICY_SYSTEM_FILE: system } });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      "servers running command 'npx' and package '@acme/*': auto-approve: off; tool push: always-ask (locked)",
    );
    expect(shown.stdout).toContain("[no-acme-writes] deny * write_* on servers running package '@acme/*'");
  });

  it("policy show names the organisation's identity providers for cross-app access, never their secrets", async () => {
    const system = path.join(home, 'system-policy.json');
    const secret = 'organisation-idp-secret-value';
    fs.writeFileSync(
      system,
      JSON.stringify({
        oauth: {
          crossAppAccess: [
            {
              server: 'crm',
              serverIdentity: { url: 'https://mcp.crm.example/**' },
              idpIssuer: 'https://login.example.com',
              idpClientId: 'wb-at-idp',
              idpClientSecret: secret,
              locked: true,
            },
            {
              serverIdentity: { url: 'https://*.tools.example/**' },
              idpIssuer: 'https://idp.example.org',
              idpClientId: 'wb-tools',
              idpTokenEndpoint: 'https://idp.example.org/oauth2/token',
            },
          ],
        },
      }),
    );
    const env = { WORKBENCH_MANAGED_POLICY_SYSTEM_FILE: system };
    const shown = await runCli(['policy', 'show'], { home, env });
    expect(shown.code).toBe(0);
    const organisation = shown.stdout.slice(shown.stdout.indexOf("Your organisation's policy"));
    expect(organisation).toContain(
      "servers named 'crm' reached at URL 'https://mcp.crm.example/**' sign in through https://login.example.com as client 'wb-at-idp', with the client secret your organisation gives (not shown) (locked)",
    );
    expect(organisation).toContain(
      "servers reached at URL 'https://*.tools.example/**' sign in through https://idp.example.org (token endpoint https://idp.example.org/oauth2/token) as client 'wb-tools' (your organisation's default)",
    );
    // The JSON answer says that a secret is given, and never what it is.
    const view = await cliJson<PolicyView>(['policy', 'show'], { home, env });
    expect(view.managed?.crossAppAccess).toEqual([
      expect.objectContaining({ server: 'crm', idpClientId: 'wb-at-idp', clientSecret: true, locked: true }),
      expect.objectContaining({ idpClientId: 'wb-tools', clientSecret: false, locked: false }),
    ]);
    expect(shown.stdout + shown.stderr + JSON.stringify(view)).not.toContain(secret);
  });
});
