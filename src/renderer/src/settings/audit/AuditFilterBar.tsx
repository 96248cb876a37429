import type { ReactNode } from 'react';

/**
 * The one filter bar of the audit log's views (docs/user/audit-log.md, docs/user/insights.md#filters): the audit viewer
 * and the Insights page put their own fields in it around the ones they share, the chat, server and tool of a call.
 */
export function AuditFilterBar({ label, children }: { label: string; children: ReactNode }): React.JSX.Element {
  return (
    <div className="audit-filters" role="search" aria-label={label}>
      {children}
    </div>
  );
}

export interface FilterOption {
  readonly value: string;
  readonly label: string;
}

/** A field that picks one of a few values. */
export function FilterSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: readonly FilterOption[];
  onChange(value: string): void;
}): React.JSX.Element {
  return (
    <label>
      <span>{label}</span>
      <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A field typed into, with the values known so far offered (a datalist named by `listId`). */
export function FilterText({
  label,
  value,
  onChange,
  type = 'text',
  placeholder,
  suggestions,
  listId,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  type?: 'text' | 'datetime-local';
  placeholder?: string;
  suggestions?: readonly string[];
  listId?: string;
}): React.JSX.Element {
  return (
    <label>
      <span>{label}</span>
      <input
        aria-label={label}
        type={type}
        list={suggestions ? listId : undefined}
        value={value}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
      />
      {suggestions && (
        <datalist id={listId}>
          {suggestions.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      )}
    </label>
  );
}

/** The fields both views share: the chat (from the chats that exist), the server and the tool. */
export function CallFilterFields({
  idPrefix,
  chats,
  servers,
  tools,
  values,
  onChange,
}: {
  /** Names the field's lists, unique on the page. */
  idPrefix: string;
  chats: readonly { id: string; title: string }[];
  servers: readonly string[];
  tools: readonly string[];
  values: { chatId: string; serverName: string; toolName: string };
  onChange(key: 'chatId' | 'serverName' | 'toolName', value: string): void;
}): React.JSX.Element {
  return (
    <>
      <FilterSelect
        label="Chat"
        value={values.chatId}
        options={[{ value: '', label: 'All chats' }, ...chats.map((chat) => ({ value: chat.id, label: chat.title }))]}
        onChange={(value) => onChange('chatId', value)}
      />
      <FilterText
        label="Server"
        value={values.serverName}
        placeholder="Any"
        suggestions={servers}
        listId={`${idPrefix}-servers`}
        onChange={(value) => onChange('serverName', value)}
      />
      <FilterText
        label="Tool"
        value={values.toolName}
        placeholder="Any"
        suggestions={tools}
        listId={`${idPrefix}-tools`}
        onChange={(value) => onChange('toolName', value)}
      />
    </>
  );
}
