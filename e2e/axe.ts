/**
 * axe-core at WCAG 2.2 AA (docs/user/accessibility.md): every screenshot the e2e specs take is also
 * checked, in the colour scheme it is taken in, so each screen they show is checked in light and in dark.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Axe's violations of the page as it is now, in words: rule, impact, what to fix, and the first elements found. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Legacy mode runs axe in the page alone. The default opens a blank page (a new renderer process) to combine the
  // results of cross-origin frames, which our pages do not have: 2.8–4.4 s a check on this host, 1.1–1.7 s without it.
  // A sampling card's screenshots and checks must fit within the 60 s the server gives the person to answer.
  const result = await new AxeBuilder({ page }).withTags(TAGS).setLegacyMode().analyze();
  return result.violations.map((violation) => {
    const nodes = violation.nodes
      .slice(0, 5)
      .map((node) => `${node.target.join(' ')} — ${(node.failureSummary ?? '').split('\n').slice(1).join(' ').trim()}`);
    return `${violation.id} (${violation.impact}): ${violation.help}\n    ${nodes.join('\n    ')}`;
  });
}

/** Checks the page as it is now; a violation fails the test at its end (a soft assertion), naming the screen. */
export async function checkAccessibility(page: Page, screen: string): Promise<void> {
  const scheme = (await page.evaluate(
    () =>
      (globalThis as unknown as { matchMedia(query: string): { matches: boolean } }).matchMedia(
        '(prefers-color-scheme: dark)',
      ).matches,
  ))
    ? 'dark'
    : 'light';
  const found = await axeViolations(page);
  expect
    .soft(found, `axe found ${found.length} violation(s) on "${screen}" (${scheme}):\n${found.join('\n')}`)
    .toEqual([]);
}
