import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../shared/approval';
import { makeTool, requestFor } from '../approval/testing/fixtures';
import { approvalNotification, badgeBitmap, badgePlan, waitingLabel } from './approval-attention';

const CHAT = '6f1b7a0e-8f0a-4c1e-9a7b-2d3c4e5f6a7b';
const waiting = (toolName: string, toolCallId: string, serverName = 'Files'): PendingApproval => ({
  chatId: CHAT,
  exchangeId: 'e1',
  request: requestFor(makeTool(serverName, toolName), toolCallId),
  createdAt: 1,
  expiresAt: null,
});
const ON = { enabled: true, supported: true };

describe('approval notifications', () => {
  it('says which server wants to run which tool, and a click opens that card', () => {
    expect(approvalNotification([waiting('write_file', 'c1')], { focused: false }, ON)).toEqual({
      title: 'Files wants to run write_file',
      body: 'Review the call in AI Workbench: it runs only if you allow it.',
      chatId: CHAT,
      toolCallId: 'c1',
    });
  });

  it("uses the server's display name when there is one", () => {
    expect(
      approvalNotification([waiting('fetch', 'c1', 'web-1')], { focused: false }, ON, () => 'Team docs')?.title,
    ).toBe('Team docs wants to run fetch');
  });

  it('makes one notification for calls that start waiting together, counting the others', () => {
    const two = approvalNotification([waiting('write_file', 'a'), waiting('move_file', 'b')], { focused: false }, ON);
    expect(two).toMatchObject({
      title: 'Files wants to run write_file',
      toolCallId: 'a',
      body: 'One more call waits for your approval too. Nothing runs until you decide.',
    });
    const four = approvalNotification(
      [waiting('a', '1'), waiting('b', '2'), waiting('c', '3'), waiting('d', '4')],
      { focused: false },
      ON,
    );
    expect(four?.body).toBe('3 more calls wait for your approval too. Nothing runs until you decide.');
  });

  it.each([
    ['a window of the app has the focus', { focused: true }, ON],
    ['notifications are off in the desktop settings', { focused: false }, { enabled: false, supported: true }],
    ['the OS has no notifications', { focused: false }, { enabled: true, supported: false }],
  ])('shows none when %s', (_case, window, settings) => {
    expect(approvalNotification([waiting('write_file', 'c1')], window, settings)).toBeNull();
  });

  it('shows none when nothing new waits (calls were only resolved)', () => {
    expect(approvalNotification([], { focused: false }, ON)).toBeNull();
  });
});

describe('the badge', () => {
  it('is a number on the macOS dock that bounces once for new calls while the app is not in front', () => {
    expect(badgePlan(2, 'darwin', { added: 1, focused: false })).toEqual({ kind: 'count', count: 2, bounce: true });
    expect(badgePlan(2, 'darwin', { added: 1, focused: true })).toEqual({ kind: 'count', count: 2, bounce: false });
    expect(badgePlan(1, 'darwin', { added: 0, focused: false })).toEqual({ kind: 'count', count: 1, bounce: false });
    expect(badgePlan(0, 'darwin', { added: 0, focused: false })).toEqual({ kind: 'count', count: 0, bounce: false });
  });

  it('is a number on Linux launchers that show one, never a bounce', () => {
    expect(badgePlan(3, 'linux', { added: 3, focused: false })).toEqual({ kind: 'count', count: 3, bounce: false });
  });

  it('is an overlay on the Windows taskbar button, described for screen readers, and cleared at 0', () => {
    expect(badgePlan(1, 'win32', { added: 1, focused: false })).toEqual({
      kind: 'overlay',
      description: '1 request waits for your answer',
    });
    expect(badgePlan(5, 'win32', { added: 0, focused: false })).toEqual({
      kind: 'overlay',
      description: '5 requests wait for your answer',
    });
    expect(badgePlan(0, 'win32', { added: 0, focused: false })).toEqual({ kind: 'overlay', description: null });
  });

  it('draws the overlay as a round red disc: opaque inside, clear in the corners', () => {
    const size = 16;
    const pixels = badgeBitmap(size);
    expect(pixels.length).toBe(size * size * 4);
    const alpha = (x: number, y: number): number => pixels[(y * size + x) * 4 + 3] as number;
    expect(alpha(8, 8)).toBe(255);
    expect([alpha(0, 0), alpha(15, 0), alpha(0, 15), alpha(15, 15)]).toEqual([0, 0, 0, 0]);
    expect(pixels.subarray((8 * size + 8) * 4, (8 * size + 8) * 4 + 3)).toEqual(Buffer.from([0x25, 0x30, 0xd9]));
  });

  it('words the count', () => {
    expect([waitingLabel(0), waitingLabel(1), waitingLabel(12)]).toEqual([
      '0 requests wait for your answer',
      '1 request waits for your answer',
      '12 requests wait for your answer',
    ]);
  });
});
