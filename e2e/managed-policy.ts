/**
 * An organisation policy for one spec file (docs/user/organisation-policy.md): written to a temporary file and named
 * in WORKBENCH_MANAGED_POLICY, with any other variables the spec needs, for the fixture's browser-mode server, which
 * inherits this worker's environment. Everything is put back after the file's tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from './fixtures';

/** Returns the policy file's path, known once the file's tests have begun. */
export function useManagedPolicy(policy: unknown, env: Record<string, string> = {}): () => string {
  const variables = { WORKBENCH_MANAGED_POLICY: '', ...env };
  const previous = Object.fromEntries(Object.keys(variables).map((key) => [key, process.env[key]]));
  let folder = '';
  let file = '';
  test.beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-org-policy-'));
    file = path.join(folder, 'policy.json');
    fs.writeFileSync(file, JSON.stringify(policy));
    Object.assign(process.env, variables, { WORKBENCH_MANAGED_POLICY: file });
  });
  test.afterAll(() => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) Reflect.deleteProperty(process.env, key);
      else process.env[key] = value;
    }
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return () => file;
}
