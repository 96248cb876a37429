// `workbench servers sandbox NAME --allow-unconfined / --revoke-unconfined` (docs/user/sandbox.md#unconfined), run as a
// person would, in a fresh data folder, against the real services, settings and audit log.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditPage } from '../shared/audit';
import type { SandboxView } from '../shared/sandbox';
import { assertBuilt, cliJson, makeHome, runCli } from './testing/cli-process';

describe('workbench servers sandbox --allow-unconfined', { timeout: 180_000 }, () => {
  let home: string;
  beforeAll(() => {
    assertBuilt();
    home = makeHome();
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('lets one server run unconfined with a warning, shows it Not contained, audits it, and contains it again', async () => {
    const allowed = await runCli(['servers', 'sandbox', 'Files', '--allow-unconfined'], { home });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain(
      'Files now runs unconfined (Not contained): it can read and change everything you can, reach any host and start any program.',
    );
    expect(allowed.stdout).toContain('Files: Not contained. You allowed it to run unconfined.');
    const view = await cliJson<SandboxView>(['servers', 'sandbox', 'Files'], { home });
    expect(view).toMatchObject({ kind: 'not-contained', unconfined: { applies: true } });
    const audit = await cliJson<AuditPage>(['audit', 'query', '--kind', 'policy'], { home });
    expect(audit.entries.map((entry) => entry.decidedBy)).toContainEqual(
      expect.stringMatching(/^Sandbox: Files may run unconfined \(Not contained: with all of your rights\)/),
    );

    const renamed = await runCli(['servers', 'rename', 'Files', 'Folder'], { home });
    expect(renamed.code, renamed.stderr).toBe(0);
    const after = await runCli(['servers', 'sandbox', 'Folder'], { home });
    expect(after.stdout).toContain(
      'Your allowance to run it unconfined: It does not apply: it was given to the server named "Files"',
    );
    expect(after.stdout).not.toContain('You allowed it to run unconfined.');

    const revoked = await runCli(['servers', 'sandbox', 'Folder', '--revoke-unconfined'], { home });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('Folder runs contained again.');
    expect((await cliJson<SandboxView>(['servers', 'sandbox', 'Folder'], { home })).unconfined).toBeNull();
    const both = await runCli(['servers', 'sandbox', 'Folder', '--allow-unconfined', '--revoke-unconfined'], { home });
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('Give --allow-unconfined or --revoke-unconfined, not both.');
  });

  it('is refused where the organisation requires containment, and nothing is stored', async () => {
    const policy = path.join(home, 'policy.json');
    fs.writeFileSync(policy, JSON.stringify({ sandbox: { requireContainment: true } }));
    const env = { WORKBENCH_MANAGED_POLICY_SYSTEM_FILE: policy };
    const refused = await runCli(['servers', 'sandbox', 'Folder', '--allow-unconfined'], { home, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'Your organisation requires every server to be contained: none may run unconfined.',
    );
    expect((await cliJson<SandboxView>(['servers', 'sandbox', 'Folder'], { home, env })).unconfined).toBeNull();
  });
});
