import path from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { RULE_LIMITS, type ApprovalRule } from '../../../shared/approval';
import { parsePointer, pointerProblem, resolvePointer } from './json-pointer';
import { pathForms } from './path-forms';
import { regexProblem } from './regex-safety';
import { compileRule, describeProblem, describeRule, ruleProblems } from './rule-compiler';

const rule = (overrides: Partial<ApprovalRule>): ApprovalRule => ({
  id: 'r1',
  effect: 'deny',
  server: 'Files',
  tool: 'write_*',
  ...overrides,
});

describe('rule validation', () => {
  it('accepts a good rule', () => {
    expect(ruleProblems(rule({ args: [{ pointer: '/path', match: 'glob', value: '/etc/**' }] }), 1)).toEqual([]);
  });

  it('refuses a bad glob, naming the rule, the field and the reason', () => {
    const problems = ruleProblems(rule({ tool: 'write_[abc' }), 3);
    expect(problems).toEqual([
      {
        ruleId: 'r1',
        ruleNumber: 3,
        field: 'tool',
        path: ['tool'],
        problem: expect.stringContaining('is not a valid glob: Missing closing: "]"'),
      },
    ]);
    expect(describeProblem(problems[0] as never)).toMatch(
      /^Rule #3 \('r1'\), tool: is not a valid glob: Missing closing/,
    );
    expect(ruleProblems(rule({ server: 'a{b' }))[0]?.problem).toContain('Missing closing: "}"');
  });

  it('refuses a bad regex and a bad pointer in an argument condition', () => {
    const problems = ruleProblems(
      rule({
        args: [
          { pointer: '/command', match: 'regex', value: '(unclosed' },
          { pointer: 'path', match: 'glob', value: '/etc/**' },
          { pointer: '/a~2b', match: 'equals', value: 1 },
          { pointer: '', match: 'equals', value: 1 },
        ],
      }),
      2,
    );
    expect(problems.map((problem) => [problem.field, problem.problem])).toEqual([
      ['args[0].value', expect.stringMatching(/^is not a valid regular expression: .*Unterminated group/)],
      ['args[1].pointer', 'must start with "/" (a JSON pointer such as /path)'],
      ['args[2].pointer', 'has "~" at position 3 not followed by 0 or 1 (write ~0 for "~" and ~1 for "/")'],
      ['args[3].pointer', 'points at the whole arguments object; point at one argument, e.g. /path'],
    ]);
    expect(problems[1]?.path).toEqual(['args', 1, 'pointer']);
  });

  it('refuses a glob or regex condition whose value is not a string', () => {
    expect(ruleProblems(rule({ args: [{ pointer: '/n', match: 'regex', value: 5 }] }))[0]?.problem).toBe(
      'must be a string for regex matching',
    );
    expect(ruleProblems(rule({ args: [{ pointer: '/n', match: 'glob', value: null }] }))[0]?.problem).toBe(
      'must be a string for glob matching',
    );
  });

  it('compiles only valid rules', () => {
    expect(() => compileRule(rule({ server: '[' }), { managed: false, number: 4 })).toThrow(
      /Rule #4 \('r1'\), server: is not a valid glob/,
    );
  });

  it('describes a rule the way the reasons quote it', () => {
    expect(
      describeRule(
        rule({
          args: [
            { pointer: '/path', match: 'glob', value: '/etc/**' },
            { pointer: '/cmd', match: 'regex', value: '^rm' },
            { pointer: '/force', match: 'equals', value: true },
          ],
        }),
      ),
    ).toBe('Files write_* when /path matches /etc/** and /cmd matches the pattern /^rm/ and /force is true');
  });
});

describe('regex safety', () => {
  it.each([
    ['(a+)+$', '(a+)+'],
    ['^(\\w*\\s?)*$', '(\\w*\\s?)*'],
    ['(a|aa)*b', '(a|aa)*'],
    ['([a-z]+)*@', '([a-z]+)*'],
    ['(x+x+)+y', '(x+x+)+'],
    ['((ab)*c)+', '((ab)*c)+'],
    ['(?:a+){2,}', '(?:a+){2,}'],
    ['(a+)+?', '(a+)+?'],
  ])('refuses the catastrophic pattern %s', (pattern, culprit) => {
    const problem = regexProblem(pattern);
    expect(problem).toContain(`repeats a group that itself repeats or has alternatives (${culprit})`);
  });

  it.each([
    '^rm\\s+-rf\\b',
    'a+b*c?',
    '(abc)+',
    '[(]+x',
    '\\(a+\\)+',
    '(?:ab){2,5}',
    '(a+){3}',
    '^(git|npm) ',
    '[a-z]+(\\.[a-z]+)?$',
    '\\p{L}+',
  ])('accepts the pattern %s', (pattern) => {
    expect(regexProblem(pattern)).toBeNull();
  });

  it('refuses empty and over-long patterns', () => {
    expect(regexProblem('')).toBe('is empty');
    expect(regexProblem('a'.repeat(RULE_LIMITS.regexLength + 1))).toBe(
      `is ${RULE_LIMITS.regexLength + 1} characters long; at most ${RULE_LIMITS.regexLength} are allowed`,
    );
    expect(regexProblem('a'.repeat(RULE_LIMITS.regexLength))).toBeNull();
  });
});

describe('JSON pointers', () => {
  it('parses escapes and resolves own members and array indexes only', () => {
    expect(parsePointer('/a~1b/~0c/0')).toEqual(['a/b', '~c', '0']);
    const document = { 'a/b': { '~c': ['x'] }, list: [1, 2] };
    expect(resolvePointer(document, ['a/b', '~c', '0'])).toBe('x');
    expect(resolvePointer(document, ['list', '01'])).toBeUndefined();
    expect(resolvePointer(document, ['list', '-'])).toBeUndefined();
    expect(resolvePointer(document, ['toString'])).toBeUndefined();
    expect(resolvePointer(document, ['list', '1', 'x'])).toBeUndefined();
    expect(pointerProblem('/ok/~0/~1')).toBeNull();
  });
});

describe('glob matching of argument values', () => {
  const globs = [
    '/etc/**',
    '/tmp/*',
    './src/**',
    '**/secret',
    'a/{b,c}/d',
    '/x/[ab]/y',
    '\\*/x',
    '!/etc/**',
    '/home/me/**/*.txt',
    '~/x/**',
    '*.env',
    '/etc/**/',
  ];
  const segment = fc.constantFrom(
    'etc',
    'tmp',
    'src',
    'secret',
    'a',
    'b',
    'c',
    'd',
    'x',
    'y',
    'home',
    'me',
    'f.txt',
    '.env',
    '.',
    '..',
    '',
    '*',
    '~',
  );
  const text = fc
    .tuple(fc.boolean(), fc.array(segment, { maxLength: 5 }))
    .map(([absolute, parts]) => `${absolute ? '/' : ''}${parts.join('/')}`);

  it('is picomatch on the text or its other spellings (path-forms.ts): any of them for deny and ask rules, all of them for allow rules', () => {
    fc.assert(
      fc.property(fc.constantFrom(...globs), text, (glob, value) => {
        const regex = picomatch.makeRe(glob, { dot: true, strictBrackets: true });
        const forms = [value, ...pathForms(value)];
        const matcher = { pointer: '/p', match: 'glob' as const, value: glob };
        const deny = compileRule(rule({ server: '*', tool: '*', args: [matcher] }), { managed: false });
        const allow = compileRule(rule({ effect: 'allow', server: '*', tool: '*', args: [matcher] }), {
          managed: false,
        });
        expect(deny.matchesArgs({ p: value })).toBe(forms.some((form) => regex.test(form)));
        expect(allow.matchesArgs({ p: value })).toBe(forms.every((form) => regex.test(form)));
      }),
      { numRuns: 2_000 },
    );
  });

  it("a path's other spellings include its normalised form", () => {
    fc.assert(
      fc.property(text, (value) => {
        const normalised = path.posix.normalize(value);
        if (value !== '' && normalised !== value && !normalised.startsWith('//'))
          expect(pathForms(value)).toContain(normalised);
      }),
      // `.//` normalises to `./`, a form the collapse to `.` alone missed.
      { numRuns: 2_000, examples: [['.//'], ['a/.//']] },
    );
  });
});

describe('one-of conditions', () => {
  const oneOf = (pointer: string, value: string, effect: ApprovalRule['effect'] = 'allow') =>
    rule({ effect, args: [{ pointer, match: 'one-of', value }] });

  it('compare the whole value, an object or a list too, with each value listed', () => {
    const compiled = compileRule(oneOf('', '[{"path":"/a","n":1},{}]'), { managed: false });
    expect(compiled.matchesArgs({ n: 1, path: '/a' })).toBe(true);
    expect(compiled.matchesArgs({})).toBe(true);
    expect(compiled.matchesArgs({ path: '/a' })).toBe(false);
    expect(compiled.matchesArgs({ path: '/a', n: 1, more: true })).toBe(false);
    expect(compiled.matchesArgs({ path: '/a', n: '1' })).toBe(false);
    const list = compileRule(oneOf('/paths', '[["/a","/b"]]', 'deny'), { managed: false });
    expect(list.matchesArgs({ paths: ['/a', '/b'] })).toBe(true);
    expect(list.matchesArgs({ paths: ['/a'] })).toBe(false);
    expect(list.matchesArgs({})).toBe(false);
    expect(describeRule(oneOf('', '[{"path":"/a"}]'))).toBe(
      'Files write_* when the arguments are exactly {"path":"/a"}',
    );
  });

  it('must list JSON values; only they may name the whole arguments', () => {
    expect(ruleProblems(oneOf('', 'not json'))).toEqual([
      expect.objectContaining({ field: 'args[0].value', problem: expect.stringContaining('JSON array') }),
    ]);
    expect(ruleProblems(oneOf('', '{"path":"/a"}'))).toHaveLength(1);
    expect(ruleProblems(rule({ args: [{ pointer: '', match: 'equals', value: 'x' }] }))).toEqual([
      expect.objectContaining({ field: 'args[0].pointer' }),
    ]);
  });
});
