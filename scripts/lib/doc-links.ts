/**
 * Dead links in the docs: every relative link of a Markdown file (README.md, CHANGELOG.md, docs/) must name a file
 * that exists and, with a `#fragment`, a heading of that file; every `docs/….md` a code comment cites must exist, with
 * its heading where it names one. Anchors are GitHub's (docs/README.md is read on GitHub and in editors alike).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface DeadLink {
  /** The file the link is in, relative to the root. */
  file: string;
  line: number;
  target: string;
  reason: string;
}

/**
 * The lines of a Markdown file with fenced code blocks emptied, so that nothing in them is read as a link or a heading;
 * `blankInline` also blanks inline code (for links: a heading's own inline code is part of its anchor).
 */
function withoutCode(markdown: string, blankInline: boolean): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker !== undefined) {
      fence = marker;
      return '';
    }
    return blankInline ? line.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length)) : line;
  });
}

/** GitHub's anchor for a heading's text: formatting dropped, lower case, punctuation removed, spaces to hyphens. */
export function anchorOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; a repeated heading gets `-1`, `-2`… as on GitHub. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown, false)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** The link targets of a Markdown file (inline links, images and reference definitions), with their lines. */
export function markdownLinks(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  withoutCode(markdown, true).forEach((text, index) => {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (match[1] !== undefined) links.push({ target: match[1], line: index + 1 });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text)?.[1];
    if (definition !== undefined) links.push({ target: definition, line: index + 1 });
  });
  return links;
}

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** Why a target, seen from `fromFile`, does not resolve; undefined when it does. `root` bounds where it may point. */
function problemOf(
  root: string,
  fromFile: string,
  target: string,
  anchorsOf: (file: string) => Set<string>,
): string | undefined {
  const [rawPath, fragment] = target.split('#', 2) as [string, string | undefined];
  const file = rawPath === '' ? fromFile : path.resolve(path.dirname(fromFile), decodeURIComponent(rawPath));
  if (path.relative(root, file).startsWith('..')) return 'points outside the repository';
  if (!fs.existsSync(file)) return 'no such file';
  if (fragment === undefined || fragment === '') return undefined;
  if (!file.endsWith('.md')) return undefined;
  return anchorsOf(file).has(fragment.toLowerCase())
    ? undefined
    : `no heading #${fragment} in ${path.relative(root, file)}`;
}

function anchorCache(): (file: string) => Set<string> {
  const cache = new Map<string, Set<string>>();
  return (file) => {
    let anchors = cache.get(file);
    if (!anchors) cache.set(file, (anchors = headingAnchors(fs.readFileSync(file, 'utf8'))));
    return anchors;
  };
}

export interface LinkCheck {
  /** How many relative links or citations were checked. */
  checked: number;
  dead: DeadLink[];
}

/** The relative links of these Markdown files (absolute paths under `root`), and the dead ones. */
export function checkMarkdownLinks(root: string, files: readonly string[]): LinkCheck {
  const anchorsOf = anchorCache();
  const dead: DeadLink[] = [];
  let checked = 0;
  for (const file of files) {
    for (const { target, line } of markdownLinks(fs.readFileSync(file, 'utf8'))) {
      if (EXTERNAL.test(target)) continue;
      checked += 1;
      const reason = problemOf(root, file, target, anchorsOf);
      if (reason) dead.push({ file: path.relative(root, file), line, target, reason });
    }
  }
  return { checked, dead };
}

/** The `docs/….md[#anchor]` citations in these source files (absolute paths), and those that do not resolve. */
export function checkDocCitations(root: string, files: readonly string[]): LinkCheck {
  const anchorsOf = anchorCache();
  const rootFile = path.join(root, 'README.md');
  const dead: DeadLink[] = [];
  let checked = 0;
  for (const file of files) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        // A citation starts a word: `'docs/readme.md'` in a string or `a/docs/x.md` is not one.
        for (const match of text.matchAll(/(?<=^|[\s(])docs\/[\w./-]+?\.md(?:#[\w-]+)?/g)) {
          checked += 1;
          const reason = problemOf(root, rootFile, match[0], anchorsOf);
          if (reason) dead.push({ file: path.relative(root, file), line: index + 1, target: match[0], reason });
        }
      });
  }
  return { checked, dead };
}

/** Files under `dir` (absolute) whose names end with one of `endings`, skipping build output and packages. */
export function filesUnder(dir: string, endings: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'out', '.cache', 'test-results'].includes(entry.name))
        found.push(...filesUnder(full, endings));
    } else if (endings.some((ending) => entry.name.endsWith(ending))) {
      found.push(full);
    }
  }
  return found.sort();
}
