import { useEffect, useRef, useState } from 'react';
import type { WorkbenchApi } from '../../../../shared/api';
import { errorText } from '../../../../shared/error-data';
import { MAX_ATTACHMENTS } from '../../../../shared/limits';
import type { ResourceAttachment } from '../../../../shared/messages';
import { attachmentOf } from './attachment';

/** An attachment of the next message, and whether its server said it changed since it was read. */
export interface PendingAttachment {
  attachment: ResourceAttachment;
  changed: boolean;
}

export interface Attachments {
  pending: readonly PendingAttachment[];
  problem: string | null;
  add(attachment: ResourceAttachment): void;
  remove(index: number): void;
  /** Reads a changed one again. */
  refresh(index: number): Promise<void>;
  /** The attachments for the message being sent; they leave the box (and their subscriptions end). */
  take(): ResourceAttachment[];
  /** The message was refused: they come back as they were. */
  restore(attachments: readonly ResourceAttachment[]): void;
}

const same = (a: ResourceAttachment, b: { server?: string; serverName?: string; uri: string }): boolean =>
  a.uri === b.uri && a.server === (b.server ?? b.serverName);

/**
 * The resources waiting to go with the next message (docs/user/mcp-servers.md#resources). Each is subscribed to
 * while it waits, where its server offers subscriptions: a change it reports (`mcp.onDidUpdateResource`) marks the
 * chip, and Refresh reads it again, so what is sent is what the person saw last.
 */
export function useAttachments(api: WorkbenchApi): Attachments {
  const [pending, setPending] = useState<PendingAttachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const subscribed = useRef(new Set<string>());
  const key = (attachment: ResourceAttachment): string => `${attachment.server}\u0000${attachment.uri}`;
  const follow = (attachment: ResourceAttachment, on: boolean): void => {
    const id = key(attachment);
    if (on === subscribed.current.has(id)) return;
    if (on) subscribed.current.add(id);
    else subscribed.current.delete(id);
    const call = on ? api.mcp.subscribeResource : api.mcp.unsubscribeResource;
    // A server without subscriptions answers false; one that fails leaves the chip without change marks.
    call({ name: attachment.server, uri: attachment.uri }).catch(() => undefined);
  };

  useEffect(
    () =>
      api.mcp.onDidUpdateResource((update) => {
        setPending((current) =>
          current.map((item) => (same(item.attachment, update) ? { ...item, changed: true } : item)),
        );
      }),
    [api],
  );
  // Leaving the chat tab ends what it followed.
  useEffect(() => {
    const followed = subscribed.current;
    return () => {
      for (const id of followed) {
        const [server = '', uri = ''] = id.split('\u0000');
        api.mcp.unsubscribeResource({ name: server, uri }).catch(() => undefined);
      }
      followed.clear();
    };
  }, [api]);

  return {
    pending,
    problem,
    add(attachment) {
      setProblem(null);
      setPending((current) =>
        [...current.filter((item) => !same(item.attachment, attachment)), { attachment, changed: false }].slice(
          -MAX_ATTACHMENTS,
        ),
      );
      follow(attachment, true);
    },
    remove(index) {
      const item = pending[index];
      if (item) follow(item.attachment, false);
      setPending((current) => current.filter((_, at) => at !== index));
    },
    async refresh(index) {
      const item = pending[index];
      if (!item) return;
      try {
        const read = attachmentOf(
          item.attachment.server,
          item.attachment.name,
          await api.mcp.readResource({ name: item.attachment.server, uri: item.attachment.uri }),
        );
        setPending((current) =>
          current.map((entry) => (same(entry.attachment, read) ? { attachment: read, changed: false } : entry)),
        );
      } catch (error) {
        setProblem(errorText(error));
      }
    },
    take() {
      const taken = pending.map((item) => item.attachment);
      for (const attachment of taken) follow(attachment, false);
      setPending([]);
      return taken;
    },
    restore(attachments) {
      setPending(attachments.map((attachment) => ({ attachment, changed: false })));
      for (const attachment of attachments) follow(attachment, true);
    },
  };
}
