import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, isStartupProblem } from '../services';
import {
  loadManagedPolicy,
  locateManagedPolicy,
  MANAGED_POLICY_ENV,
  MANAGED_POLICY_SYSTEM_FILE_ENV,
  ManagedPolicyError,
  systemManagedPolicyFile,
} from './managed-policy';

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
    write({
      disallowNeverAsk: true,
      rules: [
        { id: 'no-etc', server: '*', tool: 'write_*', args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] },
      ],
    });
    expect(loadManagedPolicy(policyFile)).toEqual({
      file: policyFile,
      source: 'env',
      policy: {
        disallowNeverAsk: true,
        rules: [
          {
            id: 'no-etc',
            effect: 'deny',
            server: '*',
            tool: 'write_*',
            args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }],
          },
        ],
        defaults: {},
        locked: {},
      },
    });
    write({});
    expect(loadManagedPolicy(policyFile)?.policy).toEqual({
      disallowNeverAsk: false,
      rules: [],
      defaults: {},
      locked: {},
    });
  });

  it('reads defaults and locked settings: modes, timeout, server and tool settings, allow and ask rules, audit shipping sinks', () => {
    const sink = { type: 'syslog', id: 'siem', host: '127.0.0.1', port: 6514 };
    write({
      defaults: {
        mode: 'auto-approve-read-only-trusted',
        timeoutSeconds: 600,
        rules: [{ id: 'read-docs', effect: 'allow', server: 'Files', tool: 'read_*' }],
        auditShipping: { sinks: [sink] },
      },
      locked: {
        tools: { Files: { write_file: 'always-ask' } },
        servers: { Shell: { autoApprove: false } },
        rules: [{ id: 'ask-shell', effect: 'ask', server: 'Shell', tool: '*' }],
        auditShipping: { sinks: [{ ...sink, id: 'org' }] },
      },
    });
    const { policy } = loadManagedPolicy(policyFile) ?? { policy: null };
    expect(policy?.defaults).toMatchObject({
      mode: 'auto-approve-read-only-trusted',
      timeoutSeconds: 600,
      rules: [{ id: 'read-docs', effect: 'allow' }],
      auditShipping: { sinks: [{ id: 'siem', enabled: true, facility: 13 }] },
    });
    expect(policy?.locked).toMatchObject({
      tools: { Files: { write_file: 'always-ask' } },
      servers: { Shell: { autoApprove: false } },
      rules: [{ id: 'ask-shell', effect: 'ask' }],
    });
  });

  it('names the field of a bad default or lock: a deny rule there, inherit, a misspelt key, a contradiction, a bad regex', () => {
    write({ locked: { rules: [{ id: 'r', effect: 'deny', server: '*', tool: '*' }] } });
    expect(loadError().message).toContain(
      'locked.rules.0.effect: a rule in defaults or locked allows or asks; deny rules go in the top-level rules',
    );
    write({ locked: { tools: { Files: { write_file: 'inherit' } } } });
    expect(loadError().message).toContain('locked.tools.Files.write_file');
    write({ defaults: { timeout: 5 } });
    expect(loadError().message).toContain('defaults: Unrecognized key: "timeout"');
    write({ disallowNeverAsk: true, locked: { mode: 'never-ask' } });
    expect(loadError().message).toContain('locked.mode: cannot be never-ask when disallowNeverAsk is true');
    write({
      defaults: {
        rules: [
          {
            id: 'r',
            effect: 'ask',
            server: '*',
            tool: '*',
            args: [{ pointer: '/cmd', match: 'regex', value: '(a|b)+' }],
          },
        ],
      },
    });
    expect(loadError().message).toContain(
      "has an invalid rule: defaults.rules.0.args.0.value (rule 'r'): repeats a group",
    );
  });

  it("is read from the OS's managed-settings location, which wins over WORKBENCH_MANAGED_POLICY (the variable cannot swap it)", () => {
    expect(systemManagedPolicyFile('linux', {})).toBe('/etc/ai-workbench/managed-policy.json');
    expect(systemManagedPolicyFile('darwin', {})).toBe('/Library/Application Support/AIWorkbench/managed-policy.json');
    expect(systemManagedPolicyFile('win32', {})).toBe('C:\\ProgramData\\AIWorkbench\\managed-policy.json');
    expect(systemManagedPolicyFile('win32', { ProgramData: 'D:\\Data' })).toBe(
      'D:\\Data\\AIWorkbench\\managed-policy.json',
    );
    const system = path.join(dir, 'system-policy.json');
    const env = { [MANAGED_POLICY_SYSTEM_FILE_ENV]: system };
    expect(locateManagedPolicy(env)).toBeNull();
    // No file at the OS location: the variable's file applies.
    expect(locateManagedPolicy({ ...env, [MANAGED_POLICY_ENV]: policyFile })).toEqual({
      file: policyFile,
      source: 'env',
    });
    fs.writeFileSync(system, JSON.stringify({ locked: { mode: 'ask' } }));
    expect(locateManagedPolicy(env)).toEqual({ file: system, source: 'system' });
    // A file at the OS location: pointing the variable at another file changes nothing.
    expect(locateManagedPolicy({ ...env, [MANAGED_POLICY_ENV]: policyFile })).toEqual({
      file: system,
      source: 'system',
    });
    // A bad file at the OS location stops the start too, naming the field and where it came from.
    fs.writeFileSync(system, JSON.stringify({ locked: { mode: 'sometimes' } }));
    vi.stubEnv(MANAGED_POLICY_SYSTEM_FILE_ENV, system);
    vi.stubEnv(MANAGED_POLICY_ENV, '');
    expect(() => createServices({ dataDir: path.join(dir, 'data'), host: 'cli', version: '0' })).toThrow(
      new RegExp(
        `The managed policy file ${system.replaceAll('\\', '\\\\')} \\(from the system's managed-settings location\\) has an invalid value: locked\\.mode: `,
      ),
    );
  });

  it('fails closed when the named file is missing or not JSON', () => {
    expect(loadError().message).toContain('cannot be read (ENOENT)');
    write('{ "rules": [');
    expect(loadError().message).toMatch(/is not valid JSON \(/);
  });

  it('names the field of an invalid value: an allow rule, a misspelt switch, a bad regex', () => {
    write({ rules: [{ id: 'r', effect: 'allow', server: '*', tool: '*' }] });
    expect(loadError().message).toContain(
      'has an invalid value: rules.0.effect: a managed policy holds deny rules only',
    );
    write({ disalowNeverAsk: true });
    expect(loadError().message).toContain('Unrecognized key: "disalowNeverAsk"');
    write({
      rules: [{ id: 'r', server: '*', tool: '*', args: [{ pointer: '/cmd', match: 'regex', value: '(a|b)+' }] }],
    });
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
      expect(services.approvals.policy.view().managed).toEqual({
        file: policyFile,
        source: 'env',
        rules: [],
        disallowNeverAsk: true,
        defaults: {},
        locked: {},
        defaulted: [],
      });
    } finally {
      services.close();
    }
    const without = createServices({
      dataDir: path.join(dir, 'data'),
      host: 'cli',
      version: '0',
      managedPolicyFile: null,
    });
    try {
      expect(without.approvals.policy.view().managed).toBeNull();
    } finally {
      without.close();
    }
  });
});
