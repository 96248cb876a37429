import { describe, expect, it } from 'vitest';
import { SAMPLING_IMAGE_PREVIEW_MAX_CHARS } from '../../shared/server-request-views';
import { messageText, messageView, partText, type SamplingMessage } from './sampling-media';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const image = (mimeType: string, data = PNG) => ({ type: 'image' as const, mimeType, data });

describe('a sampling message as the card shows it', () => {
  it('keeps the text apart from the images, which carry their type, size and base64', () => {
    const message: SamplingMessage = {
      role: 'user',
      content: [{ type: 'text', text: 'What is this?' }, image('image/png')] as unknown as SamplingMessage['content'],
    };
    expect(messageView(message)).toEqual({
      role: 'user',
      text: 'What is this?',
      media: [{ type: 'image', mimeType: 'image/png', bytes: 70, data: PNG }],
    });
    // Deny rules and the audit log still see that there was an image, with its size.
    expect(messageText(messageView(message))).toBe('What is this?\n[image image/png, 70 B]');
    expect(messageText(messageView(message), 'Edited')).toBe('Edited\n[image image/png, 70 B]');
    expect(partText(image('image/png'))).toBe('[image image/png, 70 B]');
  });

  it.each([
    ['a type that is not a plain image type', image('text/html')],
    ['a type with parameters that could leave the data: URL', image('image/png;base64,AAAA#')],
    ['data that is not base64', image('image/png', 'PHN2Zz48L3N2Zz4=" onerror="alert(1)')],
    ['data over the preview limit', image('image/png', 'A'.repeat(SAMPLING_IMAGE_PREVIEW_MAX_CHARS + 4))],
  ])('names but never shows %s', (_why, part) => {
    const view = messageView({ role: 'user', content: part as unknown as SamplingMessage['content'] });
    expect(view.text).toBe('');
    expect(view.media).toHaveLength(1);
    expect(view.media?.[0]).not.toHaveProperty('data');
    expect(view.media?.[0]?.mimeType).toBe(part.mimeType);
  });

  it('names audio with its size and never offers it as an image', () => {
    const view = messageView({
      role: 'user',
      content: { type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' } as unknown as SamplingMessage['content'],
    });
    expect(view.media).toEqual([{ type: 'audio', mimeType: 'audio/wav', bytes: 4 }]);
  });
});
