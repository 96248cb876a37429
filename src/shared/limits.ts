/**
 * Limits that the contract's schemas enforce and the page shows before anything is sent. Here, without zod, so that
 * the page's first screen loads no schema (docs/dev/benchmarks.md, app-start).
 */

/** A chat's title (chat.ts `ChatTitleSchema`). */
export const CHAT_TITLE_MAX_LENGTH = 200;

/** The text of one resource attached to a message (messages.ts `ResourceAttachmentSchema`). */
export const ATTACHMENT_TEXT_MAX_LENGTH = 1_000_000;

/** Resources attached to one message. */
export const MAX_ATTACHMENTS = 10;
