// The docs' links resolve (scripts/lib/doc-links.ts): README.md, CHANGELOG.md and docs/ link only to files and
// headings that exist, and every docs/….md a comment in the code cites is there, with the heading it names.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anchorOf,
  checkDocCitations,
  checkMarkdownLinks,
  filesUnder,
  headingAnchors,
  markdownLinks,
  type LinkCheck,
} from './lib/doc-links.ts';
import { ROOT } from './lib/project.ts';

const THIS_FILE = fileURLToPath(import.meta.url);

const words = (check: LinkCheck): string[] =>
  check.dead.map((link) => `${link.file}:${link.line} ${link.target}: ${link.reason}`);

describe('the repository', () => {
  it('README.md, CHANGELOG.md and docs/ have no dead relative link or anchor', () => {
    const files = [
      path.join(ROOT, 'README.md'),
      path.join(ROOT, 'CHANGELOG.md'),
      ...filesUnder(path.join(ROOT, 'docs'), ['.md']),
    ];
    const check = checkMarkdownLinks(ROOT, files);
    expect(check.checked).toBeGreaterThan(100);
    expect(words(check)).toEqual([]);
  });

  it('the docs index links every page of docs/user and docs/dev', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8');
    const linked = new Set(markdownLinks(index).map((link) => link.target.split('#')[0]));
    const pages = filesUnder(path.join(ROOT, 'docs'), ['.md'])
      .map((file) => path.relative(path.join(ROOT, 'docs'), file).split(path.sep).join('/'))
      .filter((page) => page !== 'README.md');
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('every docs/….md a comment in src/, e2e/ or scripts/ cites exists, with the heading it names', () => {
    const files = ['src', 'e2e', 'scripts']
      .flatMap((dir) => filesUnder(path.join(ROOT, dir), ['.ts', '.tsx', '.css', '.mjs', '.cjs']))
      .filter((file) => file !== THIS_FILE); // its fixtures below are dead on purpose
    const check = checkDocCitations(ROOT, files);
    expect(check.checked).toBeGreaterThan(100);
    expect(words(check)).toEqual([]);
  });
});

describe('the checker', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-doc-links-'));
    fs.mkdirSync(path.join(dir, 'docs'));
    fs.writeFileSync(
      path.join(dir, 'docs', 'page.md'),
      '# A page\n\n## Which setting wins?\n\n## `npm test`, in order\n\n## Twice\n\n## Twice\n',
    );
    fs.writeFileSync(
      path.join(dir, 'README.md'),
      [
        '# Readme',
        '[fine](docs/page.md) [anchor](docs/page.md#which-setting-wins) [code](docs/page.md#npm-test-in-order)',
        '[second](docs/page.md#twice-1) [here](#readme) [site](https://example.com/x.md) ![logo](docs/page.md)',
        '[gone](docs/missing.md)',
        '[no heading](docs/page.md#nowhere)',
        '```',
        '[in a code block](docs/missing-too.md)',
        '```',
        'and `[inline code](docs/missing-three.md)`',
        '[up](../outside.md)',
        '[ref]: docs/missing-four.md',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'code.ts'),
      "// see docs/page.md#twice and docs/page.md#thrice, (docs/gone.md)\nconst x = 'docs/data.md';\n",
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("names GitHub's anchors: formatting and punctuation dropped, repeats numbered", () => {
    expect(anchorOf('Which setting wins?')).toBe('which-setting-wins');
    expect(anchorOf('`npm test`, in order')).toBe('npm-test-in-order');
    expect(anchorOf("Seed 000's messages")).toBe('seed-000s-messages');
    expect(anchorOf('Settings → Approvals')).toBe('settings--approvals');
    expect([...headingAnchors('# Twice\n## Twice\n```\n# Not a heading\n```\n')]).toEqual(['twice', 'twice-1']);
  });

  it('finds a dead file, a missing heading, a link out of the repository and a dead reference; not code or sites', () => {
    expect(words(checkMarkdownLinks(dir, [path.join(dir, 'README.md')]))).toEqual([
      'README.md:4 docs/missing.md: no such file',
      'README.md:5 docs/page.md#nowhere: no heading #nowhere in docs/page.md',
      'README.md:10 ../outside.md: points outside the repository',
      'README.md:11 docs/missing-four.md: no such file',
    ]);
  });

  it("finds a code comment's dead citation", () => {
    expect(words(checkDocCitations(dir, [path.join(dir, 'code.ts')]))).toEqual([
      'code.ts:1 docs/page.md#thrice: no heading #thrice in docs/page.md',
      'code.ts:1 docs/gone.md: no such file',
    ]);
  });
});
