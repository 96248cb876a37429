/**
 * better-sqlite3, loaded with `require`. Imported as an ES module, a CommonJS package is first parsed by Node for
 * its export names (cjs-module-lexer) — time every start of the app, browser mode and the CLI would pay
 * (docs/dev/benchmarks.md, "What keeps them fast").
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

export const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
