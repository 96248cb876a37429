// The page's entry. Zod must be told not to compile parsers with eval (our CSP forbids it) before any schema is
// built, and a split bundle may build schemas in a chunk that runs before this module's own imports would: so the
// configuration runs here, and the page loads only after it (docs/dev/benchmarks.md, renderer-first-load).
import '../../shared/zod-jitless';

void import('./start');
