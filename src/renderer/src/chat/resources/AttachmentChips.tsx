import type { ResourceAttachment } from '../../../../shared/messages';
import { CloseIcon, PaperclipIcon } from '../../components/icons';
import { attachmentSize } from './attachment';

/** The resources attached to a message: name, server and size; in the message box each can be taken off again. */
export function AttachmentChips({
  attachments,
  changed,
  onRemove,
  onRefresh,
}: {
  attachments: readonly ResourceAttachment[];
  /** Per attachment: its server said it changed since it was read (a subscription). */
  changed?: readonly boolean[];
  onRemove?: (index: number) => void;
  onRefresh?: (index: number) => void;
}): React.JSX.Element | null {
  if (attachments.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Attached resources">
      {attachments.map((attachment, index) => (
        <li
          key={`${attachment.server}\u0000${attachment.uri}`}
          className="attachment-chip"
          title={attachment.uri}
          data-testid="attachment-chip"
        >
          <PaperclipIcon size={12} />
          <span className="attachment-name">{attachment.name}</span>
          <span className="attachment-meta">
            {attachment.server} · {attachmentSize(attachment)}
            {attachment.truncated ? ' · cut' : ''}
          </span>
          {changed?.[index] && onRefresh && (
            <button
              type="button"
              className="chat-link attachment-refresh"
              onClick={() => onRefresh(index)}
              aria-label={`Changed — refresh ${attachment.name} (read it again from ${attachment.server})`}
            >
              Changed — refresh
            </button>
          )}
          {onRemove && (
            <button
              type="button"
              className="attachment-remove"
              aria-label={`Remove ${attachment.name}`}
              onClick={() => onRemove(index)}
            >
              <CloseIcon size={12} />
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
