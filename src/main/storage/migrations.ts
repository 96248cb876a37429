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
];
