import type { CreateMessageRequestParams } from '@modelcontextprotocol/sdk/types.js';
import { base64ByteLength } from '../../shared/byte-size';
import {
  SAMPLING_IMAGE_PREVIEW_MAX_CHARS,
  samplingMediaWords,
  type SamplingMediaView,
  type SamplingMessageView,
} from '../../shared/server-request-views';

/**
 * A sampling message as the card and the CLI show it (docs/user/server-requests.md#sampling): its text, which the
 * person may edit, apart from its images and audio, which are shown (an image as a thumbnail) and kept as they are.
 */
export type SamplingMessage = CreateMessageRequestParams['messages'][number];
export type SamplingPart = SamplingMessage['content'] extends infer C
  ? C extends readonly (infer P)[]
    ? P
    : C
  : never;

export function partsOf(content: SamplingMessage['content']): SamplingPart[] {
  return (Array.isArray(content) ? content : [content]) as SamplingPart[];
}

/** A part in words: its text, or what it is (`[image image/png, 12 KB]`), as deny rules and the audit log see it. */
export function partText(part: SamplingPart): string {
  if (part.type === 'text') return part.text;
  if (part.type === 'image' || part.type === 'audio') return mediaText(mediaOf(part));
  return `[${part.type}]`;
}

export function mediaText(media: SamplingMediaView): string {
  return `[${samplingMediaWords(media)}]`;
}

/** An image's base64 goes to the card only when it is a plain image type in valid base64, and not too large. */
const IMAGE_TYPE = /^image\/[a-z0-9][a-z0-9.+-]{0,100}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function mediaOf(part: Extract<SamplingPart, { type: 'image' | 'audio' }>): SamplingMediaView {
  const data = typeof part.data === 'string' ? part.data : '';
  const shown =
    part.type === 'image' &&
    IMAGE_TYPE.test(part.mimeType) &&
    data.length <= SAMPLING_IMAGE_PREVIEW_MAX_CHARS &&
    BASE64.test(data);
  return {
    type: part.type,
    mimeType: part.mimeType,
    bytes: base64ByteLength(data),
    ...(shown ? { data } : {}),
  };
}

export function messageView(message: SamplingMessage): SamplingMessageView {
  const parts = partsOf(message.content);
  const media = parts.flatMap((part) => (part.type === 'image' || part.type === 'audio' ? [mediaOf(part)] : []));
  return {
    role: message.role,
    text: parts
      .filter((part) => part.type !== 'image' && part.type !== 'audio')
      .map(partText)
      .join('\n'),
    ...(media.length > 0 ? { media } : {}),
  };
}

/** A message of the view in words for deny rules and the audit log: its text (as edited), then its media named. */
export function messageText(message: SamplingMessageView, text = message.text): string {
  return [...(text === '' && message.media ? [] : [text]), ...(message.media ?? []).map(mediaText)].join('\n');
}
