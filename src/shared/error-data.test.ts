import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorText, isWorkbenchErrorData } from './error-data';
import { WorkbenchErrorDataSchema } from './errors';

const samples: unknown[] = [
  { code: 'not_found', message: 'No chat.' },
  { code: 'locked', message: 'Set by your organisation.', details: { setting: 'mode' } },
  { code: 'internal', message: '', extra: 1 },
  ...ERROR_CODES.map((code) => ({ code, message: code })),
  { code: 'no_such_code', message: 'x' },
  { code: 'not_found' },
  { code: 'not_found', message: 3 },
  { message: 'no code' },
  ['not_found', 'x'],
  'not_found',
  null,
  undefined,
  42,
  new Error('plain'),
];

describe('isWorkbenchErrorData', () => {
  it.each(samples.map((sample) => [JSON.stringify(sample) ?? String(sample), sample]))(
    'agrees with WorkbenchErrorDataSchema on %s',
    (_, sample) => {
      expect(isWorkbenchErrorData(sample)).toBe(WorkbenchErrorDataSchema.safeParse(sample).success);
    },
  );
});

describe('errorText', () => {
  it('takes the message of error data, of an Error, or the value itself', () => {
    expect(errorText({ code: 'timeout', message: 'Too slow.' })).toBe('Too slow.');
    expect(errorText(new Error('Broken.'))).toBe('Broken.');
    expect(errorText('just words')).toBe('just words');
  });
});
