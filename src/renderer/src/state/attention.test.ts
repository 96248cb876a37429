import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../shared/approval';
import { faviconWithCount, notificationOf } from './attention';

describe('what a waiting call shows outside the page (docs/user/browser-mode.md#notifications)', () => {
  it('puts the count on the favicon, nine at most', () => {
    const shown = (count: number): string =>
      decodeURIComponent(faviconWithCount(count).replace(/^data:image\/svg\+xml,/, ''));
    expect(shown(1)).toContain('>1</text>');
    expect(shown(9)).toContain('>9</text>');
    expect(shown(12)).toContain('>9+</text>');
    expect(shown(1)).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('names the tool, its server and the chat — never the arguments', () => {
    const approval = {
      chatId: 'c',
      exchangeId: null,
      createdAt: 0,
      expiresAt: null,
      request: {
        toolCallId: 't',
        serverName: 'Files',
        toolName: 'write_file',
        args: { path: 'secret.txt', content: 'password=hunter2' },
      },
    } as unknown as PendingApproval;
    const notice = notificationOf(approval, 'Taxes');
    expect(notice).toEqual({
      title: 'A tool call waits for your decision',
      body: 'Run write_file from Files — in “Taxes”',
    });
    expect(JSON.stringify(notificationOf(approval, undefined))).not.toMatch(/secret|hunter2/);
  });
});
