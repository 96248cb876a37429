import { describe, expect, it } from 'vitest';
import { methodNames } from '../../shared/contract';
import { internalFailure, internalMismatch } from './failure-words';

describe('an internal failure, in words', () => {
  it('names the tool and its server, or the server, not ids or the method', () => {
    const toolCall = internalFailure(
      'apps.callTool',
      { chatId: '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10', serverName: 'Files', toolName: 'write_file', args: {} },
      new Error('socket hang up'),
    );
    expect(toolCall.message).toBe(
      "Could not run the tool (the tool write_file of Files): socket hang up. The details are in the app's log.",
    );
    expect(toolCall.message).not.toContain('6f1c2d6e');
    expect(toolCall.message).not.toContain('apps.callTool');
    expect(toolCall.details).toEqual({ method: 'apps.callTool', cause: 'socket hang up' });
    expect(internalFailure('mcp.restart', { name: 'Files' }, new Error('EPIPE')).message).toBe(
      "Could not restart the server (Files): EPIPE. The details are in the app's log.",
    );
    expect(
      internalFailure('chat.send', { chatId: '6f1c2d6e-3b7a-4d4e-9a55-0d3c5b2f9a10' }, new Error('x.')).message,
    ).toBe("Could not send the message: x. The details are in the app's log.");
    expect(internalMismatch('mcp.tools', { name: 'Files' }).message).toMatch(
      /^Could not list the server's tools \(Files\): /,
    );
  });

  it('is a sentence without a method name for every method of the contract', () => {
    for (const method of methodNames) {
      const { message } = internalFailure(method, undefined, new Error('boom'));
      expect(message).toMatch(/^Could not [^.]+: boom\. The details are in the app's log\.$/);
      expect(message).not.toContain(method);
    }
  });
});
