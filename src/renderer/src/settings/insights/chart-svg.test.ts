import { describe, expect, it } from 'vitest';
import { barsSvg, rowsSvg, svgSize } from './chart-svg';

/** The charts as SVG for a report (docs/user/insights.md#exports): the same figures as the page, text escaped. */
describe('chart SVG', () => {
  const series = [
    { label: 'Allowed by you', color: '#2f9e6a' },
    { label: 'Denied by a rule', color: '#a0527a' },
  ];

  it('draws each row of an HTML bar chart: its name, a part per series in proportion, its total', () => {
    const svg = rowsSvg(
      'Tools asked about most',
      [
        { label: 'Files.write_file', values: [4, 2] },
        { label: 'Files.<script>', values: [3, 0] },
      ],
      series,
    );
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('<title>Tools asked about most</title>');
    expect(svg).toContain('>Files.write_file</text>');
    expect(svg).toContain('Files.&#60;script&#62;');
    expect(svg).not.toContain('<script>');
    const widths = [...svg.matchAll(/<rect x="[\d.]+" y="\d+" width="([\d.]+)" height="16" fill="(#[0-9a-f]+)"/g)].map(
      (match) => [Number(match[1]), match[2]],
    );
    // 4 and 2 of the largest row (6) fill the bar; 3 is half of it.
    expect(widths).toHaveLength(3);
    expect(widths[0]?.[1]).toBe('#2f9e6a');
    expect(widths[1]?.[1]).toBe('#a0527a');
    const full = (widths[0]?.[0] as number) + (widths[1]?.[0] as number);
    expect((widths[2]?.[0] as number) / full).toBeCloseTo(0.5, 2);
    expect(svg).toContain('>6</text>');
    expect(svgSize(svg)).toEqual({ width: 720, height: 32 + 2 * 22 + 8 });
  });

  it('draws stacked columns with every label when they fit', () => {
    const svg = barsSvg(
      'Decisions by day',
      ['2026-11-26', '2026-11-27'],
      [{ ...series[0], values: [1, 2] } as never, { ...series[1], values: [0, 1] } as never],
    );
    expect(svg).toContain('>2026-11-26</text>');
    expect(svg).toContain('>2026-11-27</text>');
    // A bar per non-zero part, each with its words (the legend's swatches have none).
    expect(svg.match(/<rect [^>]+><title>/g)).toHaveLength(3);
    expect(svg).toContain('<title>2026-11-27: Denied by a rule 1</title>');
    expect(svgSize(svg)).toEqual({ width: 720, height: 320 });
  });
});
