import type { AuditHead, AuditProblem, AuditProblemKind } from '../../shared/audit';
import { GENESIS_HASH } from './audit-row';

/** One row as the checker sees it: what is stored, and what its content hashes to now. */
export interface ChainLink {
  sequence: number;
  hash: string;
  previousHash: string;
  computedHash: string;
  /** The hash the row's content would have under another sequence number (recognises renumbered rows). */
  hashWithSequence(sequence: number): string;
  /** For exported files: the 1-based line the row is on. */
  line?: number;
}

export interface ChainLookups {
  /** The sequence number of the row whose stored hash is `hash`, or null when no row has it. */
  sequenceOfHash(hash: string): Promise<number | null>;
}

export interface ChainExpectations {
  /** The head recorded at the last commit (or in an export's header); null when none is recorded. */
  head: AuditHead | null;
  /** A row the caller trusts from elsewhere (an earlier export's header). */
  anchor?: AuditHead | undefined;
}

/** How far back a renumbering after deleted rows is looked for. */
const MAX_RENUMBER = 1000;

/**
 * Walks a chain in sequence order and names the FIRST broken row and how it broke. Rows are pushed
 * one at a time (a million of them stream through in constant memory); once a row fails, one more
 * row is taken as lookahead, because telling an inserted row from an edited one needs its successor.
 */
export class ChainChecker {
  private previous: { sequence: number; hash: string; line?: number | undefined } = { sequence: 0, hash: GENESIS_HASH };
  private beforePrevious: string | null = null;
  private suspect: ChainLink | null = null;
  private successor: ChainLink | null = null;
  private anchorProblem: AuditProblem | null = null;
  private verifiedRows = 0;

  constructor(private readonly expectations: ChainExpectations) {}

  /** Rows verified so far. */
  get verified(): number {
    return this.verifiedRows;
  }

  /** The last verified row (sequence 0 and the genesis hash before the first). */
  get last(): AuditHead {
    return { sequence: this.previous.sequence, hash: this.previous.hash };
  }

  /** Takes the next row; answers false once nothing more is needed to name the first problem. */
  push(link: ChainLink): boolean {
    if (this.anchorProblem) return false;
    if (this.suspect) {
      this.successor = link;
      return false;
    }
    const intact =
      link.sequence === this.previous.sequence + 1 &&
      link.previousHash === this.previous.hash &&
      link.computedHash === link.hash;
    if (!intact) {
      this.suspect = link;
      return true;
    }
    const anchor = this.expectations.anchor;
    if (anchor && anchor.sequence === link.sequence && anchor.hash !== link.hash) {
      this.anchorProblem = problem(
        'anchor-mismatch',
        link,
        `Row ${link.sequence} is not the row the anchor names (hash ${short(anchor.hash)}, found ${short(link.hash)}): the log was rewritten up to or before it.`,
      );
      return false;
    }
    this.beforePrevious = this.previous.hash;
    this.previous = { sequence: link.sequence, hash: link.hash, line: link.line };
    this.verifiedRows++;
    return true;
  }

  /** The first problem, or null when every pushed row chains and the head (and anchor) agree. */
  async finish(lookups: ChainLookups): Promise<AuditProblem | null> {
    if (this.anchorProblem) return this.anchorProblem;
    if (this.suspect) return this.diagnose(this.suspect, this.successor, lookups);
    return this.checkEnd();
  }

  private async diagnose(row: ChainLink, next: ChainLink | null, lookups: ChainLookups): Promise<AuditProblem> {
    const previous = this.previous;
    const expected = previous.sequence + 1;
    const { head } = this.expectations;
    if (row.sequence < expected) {
      return problem(
        'inserted',
        row,
        `Row ${row.sequence} comes where row ${expected} belongs: it was put into the chain, not appended to it.`,
      );
    }
    if (row.sequence > expected && next !== null && next.sequence < row.sequence) {
      return {
        ...problem(
          'reordered',
          row,
          `Row ${row.sequence} comes before row ${next.sequence}: rows were moved out of the order they were appended in.`,
        ),
        sequence: expected,
      };
    }
    if (row.sequence > expected) {
      const count = row.sequence - expected;
      const which = count === 1 ? `Row ${expected} is` : `Rows ${expected} to ${row.sequence - 1} are`;
      return {
        ...problem(
          'missing',
          row,
          `${which} missing: the sequence jumps from ${previous.sequence} to ${row.sequence}.`,
        ),
        sequence: expected,
      };
    }
    const linked = row.previousHash === previous.hash;
    if (!linked && this.beforePrevious !== null && row.previousHash === this.beforePrevious) {
      return {
        sequence: previous.sequence,
        kind: 'inserted',
        message: `Row ${row.sequence} chains to row ${previous.sequence - 1}, so row ${previous.sequence} was put in between.`,
        ...(previous.line === undefined ? {} : { line: previous.line }),
      };
    }
    if (head && row.sequence > head.sequence) {
      return problem(
        'inserted',
        row,
        `Row ${row.sequence} comes after the chain head recorded at the last commit (row ${head.sequence}): it was added outside the log.`,
      );
    }
    if (!linked) {
      const chainedTo = await lookups.sequenceOfHash(row.previousHash);
      if (chainedTo !== null && chainedTo > row.sequence) {
        return problem(
          'reordered',
          row,
          `Row ${row.sequence} chains to the row now at ${chainedTo}: rows were moved out of the order they were appended in.`,
        );
      }
    }
    if (next && next.previousHash === previous.hash) {
      return problem(
        'inserted',
        row,
        `Row ${next.sequence} chains to row ${previous.sequence}, so row ${row.sequence} was put in between.`,
      );
    }
    if (linked) {
      return problem(
        'content-changed',
        row,
        `Row ${row.sequence} was changed: its content no longer gives its hash ${short(row.hash)}.`,
      );
    }
    if (row.computedHash !== row.hash) {
      for (let gap = 1; gap <= MAX_RENUMBER; gap++) {
        if (row.hashWithSequence(row.sequence + gap) === row.hash) {
          const which = gap === 1 ? `the row before it was` : `${gap} rows before it were`;
          return problem(
            'missing',
            row,
            `Row ${row.sequence} was appended as row ${row.sequence + gap}: ${which} deleted and the later rows renumbered.`,
          );
        }
      }
    }
    return problem(
      'previous-hash-mismatch',
      row,
      `Row ${row.sequence} does not chain to row ${previous.sequence}: its previousHash is not that row's hash ` +
        `(row ${previous.sequence} was changed and re-hashed, or this row's link was changed).`,
    );
  }

  private checkEnd(): AuditProblem | null {
    const { head, anchor } = this.expectations;
    const last = this.previous;
    const at = (sequence: number): Pick<AuditProblem, 'sequence'> => ({ sequence });
    if (head === null) {
      if (last.sequence > 0) {
        return {
          ...at(last.sequence),
          kind: 'head-mismatch',
          message: `The chain head recorded at each commit is missing (the log ends at row ${last.sequence}).`,
        };
      }
    } else if (head.sequence > last.sequence) {
      const which =
        head.sequence === last.sequence + 1
          ? `Row ${head.sequence} is`
          : `Rows ${last.sequence + 1} to ${head.sequence} are`;
      return {
        ...at(last.sequence + 1),
        kind: 'missing',
        message: `${which} missing: the chain head recorded at the last commit is row ${head.sequence}.`,
      };
    } else if (head.sequence < last.sequence) {
      return {
        ...at(head.sequence + 1),
        kind: 'inserted',
        message: `Row ${head.sequence + 1} comes after the chain head recorded at the last commit (row ${head.sequence}): rows were added outside the log.`,
      };
    } else if (head.hash !== last.hash) {
      return {
        ...at(last.sequence),
        kind: 'content-changed',
        message: `Row ${last.sequence} is not the row recorded as the chain head when it was committed: it was rewritten.`,
      };
    }
    if (anchor && anchor.sequence > last.sequence) {
      return {
        ...at(anchor.sequence),
        kind: 'anchor-mismatch',
        message: `The anchor names row ${anchor.sequence}, but the log ends at row ${last.sequence}.`,
      };
    }
    return null;
  }
}

function problem(kind: AuditProblemKind, row: ChainLink, message: string): AuditProblem {
  return { sequence: row.sequence, kind, message, ...(row.line === undefined ? {} : { line: row.line }) };
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
