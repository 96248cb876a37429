/**
 * Versioned schema changes, applied in order inside one transaction each. The database's
 * `user_version` is the number of migrations applied. Never edit a released migration: add one.
 */
export const migrations: readonly string[] = [
  /* 1 */ `
  CREATE TABLE chats (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX chats_by_updated ON chats (updated_at DESC);
  `,
  /* 2 */ `
  -- The approval engine (src/main/approval). A chat without a row here uses the tool settings.
  CREATE TABLE chat_approval_modes (
    chat_id  TEXT PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    mode     TEXT NOT NULL CHECK (mode IN ('always-ask', 'never-ask'))
  ) STRICT;
  -- "Allow for this chat": valid only while the tool's definition hash is the one the person allowed.
  CREATE TABLE approval_grants (
    chat_id          TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    server_name      TEXT NOT NULL,
    tool_name        TEXT NOT NULL,
    definition_hash  TEXT NOT NULL,
    granted_at       INTEGER NOT NULL,
    PRIMARY KEY (chat_id, server_name, tool_name)
  ) STRICT;
  -- Calls that wait (or waited) for a person; kept once decided, so a second answer is refused by name.
  CREATE TABLE pending_approvals (
    chat_id       TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    tool_call_id  TEXT NOT NULL,
    exchange_id   TEXT,
    request       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'allow_session', 'allow_once', 'deny', 'timeout', 'cancelled')),
    resolution    TEXT,
    PRIMARY KEY (chat_id, tool_call_id)
  ) STRICT;
  CREATE INDEX pending_approvals_waiting ON pending_approvals (chat_id) WHERE status = 'pending';
  CREATE INDEX pending_approvals_by_call ON pending_approvals (tool_call_id);
  `,
];
