import { describe, expect, it } from 'vitest';
import { isWebUrl } from './web-url';

describe('the pages a server may ask to open', () => {
  it('are http(s) addresses with a host, nothing else', () => {
    expect(['https://example.com/a?b#c', 'http://127.0.0.1:8080/', 'HTTPS://EXAMPLE.COM'].map(isWebUrl)).toEqual([
      true,
      true,
      true,
    ]);
    const refused = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,x',
      'vscode://x',
      'ms-settings:',
      'https:',
      '/relative',
      '',
    ];
    expect(refused.filter(isWebUrl)).toEqual([]);
  });
});
