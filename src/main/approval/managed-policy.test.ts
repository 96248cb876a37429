import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, isStartupProblem } from '../services';
import { loadManagedPolicy, MANAGED_POLICY_ENV, ManagedPolicyError } from './managed-policy';

let dir: string;
let policyFile: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-managed-'));
  policyFile = path.join(dir, 'managed-policy.json');
});
afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(content: unknown): void {
  fs.writeFileSync(policyFile, typeof content === 'string' ? content : JSON.stringify(content));
}

function loadError(): ManagedPolicyError {
  try {
    loadManagedPolicy(policyFile);
  } catch (error) {
    expect(error).toBeInstanceOf(ManagedPolicyError);
    expect((error as ManagedPolicyError).file).toBe(policyFile);
    expect((error as Error).message).toContain(`The managed policy file ${policyFile} (from ${MANAGED_POLICY_ENV})`);
    return error as ManagedPolicyError;
  }
  throw new Error('expected ManagedPolicyError');
}

describe('the managed policy file', () => {
  it('is optional', () => {
    expect(loadManagedPolicy(undefined)).toBeNull();
    expect(loadManagedPolicy('  ')).toBeNull();
  });

  it('reads deny rules (effect may be left out) and the never-ask switch', () => {
    write({ disallowNeverAsk: true, rules: [{ id: 'no-etc', server: '*', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] }] });
    expect(loadManagedPolicy(policyFile)).toEqual({
      file: policyFile,
      source: 'env',
      policy: { disallowNeverAsk: true, rules: [{ id: 'no-etc', effect: 'deny', server: '*', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] }] },
    });
    write({});
    expect(loadManagedPolicy(policyFile)?.policy).toEqual({ disallowNeverAsk: false, rules: [] });
  });

  it('fails closed when the named file is missing or not JSON', () => {
    expect(loadError().message).toContain('cannot be read (ENOENT)');
    write('{ "rules": [');
    expect(loadError().message).toMatch(/is not valid JSON \(/);
  });

  it('names the field of an invalid value: an allow rule, a misspelt switch, a bad regex', () => {
    write({ rules: [{ id: 'r', effect: 'allow', server: '*', tool: '*' }] });
    expect(loadError().message).toContain('has an invalid value: rules.0.effect: a managed policy holds deny rules only');
    write({ disalowNeverAsk: true });
    expect(loadError().message).toContain('Unrecognized key: "disalowNeverAsk"');
    write({ rules: [{ id: 'r', server: '*', tool: '*', args: [{ pointer: '/cmd', match: 'regex', value: '(a|b)+' }] }] });
    expect(loadError().message).toContain("has an invalid rule: rules.0.args.0.value (rule 'r'): repeats a group");
    write({ rules: [{ id: 'r', server: '[x', tool: '*' }] });
    expect(loadError().message).toContain("rules.0.server (rule 'r'): is not a valid glob");
  });

  it('stops createServices with a startup problem, read from WORKBENCH_MANAGED_POLICY when no file is passed', () => {
    write({ rules: 'nope' });
    vi.stubEnv(MANAGED_POLICY_ENV, policyFile);
    let caught: unknown;
    try {
      createServices({ dataDir: path.join(dir, 'data'), host: 'cli', version: '0' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ManagedPolicyError);
    expect(isStartupProblem(caught)).toBe(true);
    expect((caught as Error).message).toContain('rules: ');
    // Nothing was created before the check.
    expect(fs.existsSync(path.join(dir, 'data', 'workbench.db'))).toBe(false);

    write({ disallowNeverAsk: true });
    const services = createServices({ dataDir: path.join(dir, 'data'), host: 'cli', version: '0' });
    try {
      expect(services.approvals.policy.view().managed).toEqual({ file: policyFile, rules: [], disallowNeverAsk: true });
    } finally {
      services.close();
    }
    const without = createServices({ dataDir: path.join(dir, 'data'), host: 'cli', version: '0', managedPolicyFile: null });
    try {
      expect(without.approvals.policy.view().managed).toBeNull();
    } finally {
      without.close();
    }
  });
});
