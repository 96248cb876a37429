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
  /* 2: the audit log (src/main/audit). Append-only and hash-chained; no foreign key to chats, because
     the record of what ran must outlive the chat it ran in (deleting a chat never deletes its audit rows). */ `
  CREATE TABLE audit_log (
    sequence          INTEGER PRIMARY KEY,
    time              TEXT NOT NULL,
    kind              TEXT NOT NULL,
    chat_id           TEXT NOT NULL,
    exchange_id       TEXT,
    tool_call_id      TEXT NOT NULL,
    server_name       TEXT NOT NULL,
    tool_name         TEXT NOT NULL,
    definition_hash   TEXT,
    decision          TEXT,
    actor             TEXT,
    decided_by        TEXT,
    reason            TEXT,
    args              TEXT,
    args_hash         TEXT,
    edited_args       TEXT,
    edited_args_hash  TEXT,
    outcome           TEXT,
    duration_ms       REAL,
    result_bytes      INTEGER,
    error             TEXT,
    previous_hash     TEXT NOT NULL,
    hash              TEXT NOT NULL
  ) STRICT;
  CREATE INDEX audit_log_by_chat ON audit_log (chat_id, sequence);
  CREATE INDEX audit_log_by_tool ON audit_log (server_name, tool_name, sequence);

  CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: a row cannot be changed'); END;
  CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: a row cannot be deleted'); END;
  -- Every row extends the chain: the next sequence number (no gaps) and the last row's hash.
  -- This also stops INSERT OR REPLACE, whose implicit delete would not fire the trigger above.
  CREATE TRIGGER audit_log_extends_chain BEFORE INSERT ON audit_log
  WHEN NEW.sequence IS NOT (SELECT coalesce(max(sequence), 0) + 1 FROM audit_log)
    OR NEW.previous_hash IS NOT coalesce((SELECT hash FROM audit_log ORDER BY sequence DESC LIMIT 1),
                                         '0000000000000000000000000000000000000000000000000000000000000000')
  BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: a row must take the next sequence number and the last row''s hash'); END;

  -- The chain head as of the last commit: lets verify see rows removed from (or rewritten at) the end,
  -- which the chain alone cannot show. It can only ever name the actual last row.
  CREATE TABLE audit_head (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    sequence  INTEGER NOT NULL,
    hash      TEXT NOT NULL
  ) STRICT;
  CREATE TRIGGER audit_log_moves_head AFTER INSERT ON audit_log
  BEGIN
    INSERT INTO audit_head (id, sequence, hash) VALUES (1, NEW.sequence, NEW.hash)
    ON CONFLICT (id) DO UPDATE SET sequence = excluded.sequence, hash = excluded.hash;
  END;
  CREATE TRIGGER audit_head_insert_is_last_row BEFORE INSERT ON audit_head
  WHEN NEW.sequence IS NOT (SELECT max(sequence) FROM audit_log)
    OR NEW.hash IS NOT (SELECT hash FROM audit_log WHERE sequence = NEW.sequence)
  BEGIN SELECT RAISE(ABORT, 'audit_head follows the audit log: it names the last row'); END;
  CREATE TRIGGER audit_head_update_is_last_row BEFORE UPDATE ON audit_head
  WHEN NEW.id IS NOT 1
    OR NEW.sequence IS NOT (SELECT max(sequence) FROM audit_log)
    OR NEW.hash IS NOT (SELECT hash FROM audit_log WHERE sequence = NEW.sequence)
  BEGIN SELECT RAISE(ABORT, 'audit_head follows the audit log: it names the last row'); END;
  CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head
  BEGIN SELECT RAISE(ABORT, 'audit_head follows the audit log: it cannot be deleted'); END;
  `,
  /* 3 */ `
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
  /* 4: the tool loop (src/main/chat). A chat's provider, model and system prompt, and its messages: seed 000's
     user, assistant (a ModelReply, JSON), approval, system and error messages, in order, each with its exchange. */ `
  ALTER TABLE chats ADD COLUMN provider_id TEXT;
  ALTER TABLE chats ADD COLUMN model TEXT;
  ALTER TABLE chats ADD COLUMN system_prompt TEXT;
  CREATE TABLE chat_messages (
    id           TEXT PRIMARY KEY,
    chat_id      TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    exchange_id  TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'approval', 'system', 'error')),
    created_at   INTEGER NOT NULL,
    body         TEXT NOT NULL,
    UNIQUE (chat_id, seq)
  ) STRICT;
  CREATE INDEX chat_messages_by_exchange ON chat_messages (chat_id, exchange_id);
  `,
  /* 5: what the audit log remembers about itself (src/main/audit/audit-guard.ts). The count of rows
     ever written, beside the head, so a log wiped together with its head is not an empty log; the last row known to
     have come in while the append-only triggers were in place (checked at every open and close); and each time the
     triggers were found missing or altered and put back, with the rows that came in meanwhile. */ `
  CREATE TABLE audit_watermark (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    rows_written      INTEGER NOT NULL,
    checked_sequence  INTEGER,
    checked_at        TEXT
  ) STRICT;
  INSERT INTO audit_watermark (id, rows_written, checked_sequence, checked_at)
  SELECT 1, coalesce(max(sequence), 0), NULL, NULL FROM audit_log;
  CREATE TRIGGER audit_log_counts_rows AFTER INSERT ON audit_log
  BEGIN UPDATE audit_watermark SET rows_written = max(rows_written, NEW.sequence) WHERE id = 1; END;
  CREATE TRIGGER audit_watermark_never_lower BEFORE UPDATE ON audit_watermark
  WHEN NEW.id IS NOT 1 OR NEW.rows_written < OLD.rows_written
  BEGIN SELECT RAISE(ABORT, 'audit_watermark only grows: the rows ever written cannot be fewer'); END;
  CREATE TRIGGER audit_watermark_no_delete BEFORE DELETE ON audit_watermark
  BEGIN SELECT RAISE(ABORT, 'audit_watermark cannot be deleted'); END;

  CREATE TABLE audit_guard_events (
    id                INTEGER PRIMARY KEY,
    detected_at       TEXT NOT NULL,
    what              TEXT NOT NULL,
    after_sequence    INTEGER,
    through_sequence  INTEGER NOT NULL
  ) STRICT;
  CREATE TRIGGER audit_guard_events_no_update BEFORE UPDATE ON audit_guard_events
  BEGIN SELECT RAISE(ABORT, 'audit_guard_events is append-only'); END;
  CREATE TRIGGER audit_guard_events_no_delete BEFORE DELETE ON audit_guard_events
  BEGIN SELECT RAISE(ABORT, 'audit_guard_events is append-only'); END;
  `,
  /* 6: audit shipping (src/main/audit/shipping). How far each sink has acknowledged the audit log; the rows
     themselves are read from audit_log (no second copy). The lease lets one process ship a sink at a time
     (the app, browser mode and the CLI share the database). */ `
  CREATE TABLE audit_shipping_cursors (
    sink_id          TEXT PRIMARY KEY,
    sequence         INTEGER NOT NULL DEFAULT 0 CHECK (sequence >= 0),
    acknowledged_at  INTEGER,
    last_error       TEXT,
    last_error_at    INTEGER,
    lease_owner      TEXT,
    lease_until      INTEGER
  ) STRICT;
  `,
  /* 7: what the organisation's policy file held when a start last saw it (src/main/approval/managed-policy-audit.ts):
     a file that changed, appeared or went away between two starts becomes a policy row in the audit log. */ `
  CREATE TABLE policy_snapshots (
    subject   TEXT PRIMARY KEY,
    hash      TEXT NOT NULL,
    snapshot  TEXT NOT NULL,
    seen_at   INTEGER NOT NULL
  ) STRICT;
  `,
  /* 8: one pending store for everything that waits on a person (src/main/approval/pending-store.ts): the model's tool
     calls, a server's sampling and elicitation requests (one from no chat has no chat), and the kinds to come; and the
     chat's waiting state spelled once in the replies already stored. */ `
  CREATE TABLE pending_requests (
    chat_id      TEXT REFERENCES chats (id) ON DELETE CASCADE,
    request_id   TEXT NOT NULL,
    kind         TEXT NOT NULL
                 CHECK (kind IN ('tool-call', 'sampling', 'elicitation', 'app-tool-call', 'sandbox-widening')),
    exchange_id  TEXT,
    request      TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'allow_session', 'allow_once', 'deny', 'timeout', 'cancelled')),
    resolution   TEXT,
    -- The process that holds a server's request open (its connection to the server); null for a tool call, which any
    -- process may answer.
    owner        TEXT
  ) STRICT;
  INSERT INTO pending_requests (chat_id, request_id, kind, exchange_id, request, created_at, expires_at, status, resolution)
  SELECT chat_id, tool_call_id, 'tool-call', exchange_id, request, created_at, expires_at, status, resolution
  FROM pending_approvals ORDER BY rowid;
  DROP TABLE pending_approvals;
  CREATE UNIQUE INDEX pending_requests_key ON pending_requests (coalesce(chat_id, ''), request_id);
  CREATE INDEX pending_requests_waiting ON pending_requests (chat_id) WHERE status = 'pending';
  CREATE INDEX pending_requests_by_id ON pending_requests (request_id);
  UPDATE chat_messages SET body = replace(body, '"end":"waiting_approval"', '"end":"waiting-approval"')
  WHERE role = 'assistant' AND instr(body, '"end":"waiting_approval"') > 0;
  `,
  /* 9: approval insights (src/main/audit/audit-stats.ts, docs/user/insights.md): a period of the audit log is read by time. */ `
  CREATE INDEX audit_log_by_time ON audit_log (time);
  `,
  /* 10: MCP Apps views pinned by their hash per server identity (src/main/mcp/app-view-pins.ts, docs/user/mcp-apps.md). */ `
  CREATE TABLE app_view_pins (
    identity   TEXT NOT NULL,
    uri        TEXT NOT NULL,
    hash       TEXT NOT NULL,
    bytes      INTEGER NOT NULL,
    csp        TEXT NOT NULL,
    pinned_at  INTEGER NOT NULL,
    PRIMARY KEY (identity, uri)
  ) STRICT;
  `,
  /* 11: who asked for a call, its own audit column (docs/user/audit-log.md#requested-by): written with every row from
     now on and in its hash. Rows written before keep NULL there (the log is append-only and their hash covers what
     they were written with); their requester is derived from their hashed call id and kind when read
     (src/main/audit/requested-by.ts). */ `
  ALTER TABLE audit_log ADD COLUMN requested_by TEXT;
  `,
  /* 12: answers to a server's request (or its view's tool call) given in another process, for the process that holds
     it to apply (src/main/approval/answer-inbox.ts, docs/user/approvals.md#one-inbox). */ `
  CREATE TABLE pending_answers (
    answer_id   TEXT PRIMARY KEY,
    request_id  TEXT NOT NULL,
    owner       TEXT NOT NULL,
    decision    TEXT NOT NULL,
    origin      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'taken', 'applied', 'refused')),
    message     TEXT
  ) STRICT;
  CREATE INDEX pending_answers_new ON pending_answers (owner) WHERE status = 'new';
  `,
  /* 13: when each process that holds a server's request last looked for its answers: the proof that a request's owner
     is an AI Workbench process answering there (src/main/approval/answer-inbox.ts, docs/user/approvals.md#one-inbox). */ `
  CREATE TABLE request_holders (
    owner      TEXT PRIMARY KEY,
    looked_at  INTEGER NOT NULL
  ) STRICT;
  `,
  /* 14: tool calls running as MCP tasks, followed again after a restart (src/main/chat/followed-tasks.ts,
     docs/user/mcp-servers.md#tasks): a row from the task's creation until the call's end is written. */ `
  CREATE TABLE followed_tasks (
    tool_call_id     TEXT PRIMARY KEY,
    chat_id          TEXT NOT NULL,
    message_id       TEXT NOT NULL,
    exchange_id      TEXT NOT NULL,
    server_name      TEXT NOT NULL,
    server_identity  TEXT,
    tool_name        TEXT NOT NULL,
    definition_hash  TEXT,
    task_id          TEXT NOT NULL,
    created_at       INTEGER NOT NULL
  ) STRICT;
  `,
  /* 15: which process follows each of those tasks, and when it last said it still does: one live process follows a
     task, and another takes it over once that one is gone (src/main/chat/task-claims.ts). */ `
  ALTER TABLE followed_tasks ADD COLUMN follower TEXT;
  ALTER TABLE followed_tasks ADD COLUMN followed_at INTEGER;
  `,
];
