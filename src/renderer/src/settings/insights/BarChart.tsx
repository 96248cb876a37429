import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { barsSvg, canvasPng } from './chart-svg';
import { ChartExport } from './ChartExport';

export interface BarSeries {
  label: string;
  color: string;
  values: readonly number[];
}

export interface BarChartProps {
  /** Names the chart, its table and its exported files. */
  title: string;
  fileName: string;
  labels: readonly string[];
  series: readonly BarSeries[];
  /** A bar (its index and series) was picked: open its rows. */
  onPick(index: number, series: number): void;
  height?: number;
}

const AXIS_FONT = '12px system-ui, sans-serif';

/** Changes whenever the colour scheme or the contrast the page follows changes, so the chart is drawn again in its colours. */
function useSchemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const queries = ['(prefers-color-scheme: dark)', '(prefers-contrast: more)'].map((query) =>
      window.matchMedia(query),
    );
    const bump = (): void => setVersion((value) => value + 1);
    for (const query of queries) query.addEventListener('change', bump);
    return () => {
      for (const query of queries) query.removeEventListener('change', bump);
    };
  }, []);
  return version;
}

/** Half the widest label, so the one at the right edge is drawn whole. */
function rightPadding(labels: readonly string[]): number {
  const context = document.createElement('canvas').getContext('2d');
  if (!context) return 40;
  context.font = AXIS_FONT;
  const widest = Math.max(0, ...labels.map((label) => context.measureText(label).width));
  return Math.ceil(widest / 2) + 4;
}

/**
 * Stacked bars drawn with uPlot (docs/dev/architecture.md, "Insights"), with a table of the same figures for screen
 * readers and keyboards (each cell opens its rows), and PNG/SVG exports. Colours come from the series; axes and grid
 * from the theme's colours, read again whenever the colour scheme changes, so light and dark both read.
 */
export function BarChart({ title, fileName, labels, series, onPick, height = 220 }: BarChartProps): React.JSX.Element {
  const holder = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const pick = useRef(onPick);
  const scheme = useSchemeVersion();
  useEffect(() => {
    pick.current = onPick;
  }, [onPick]);

  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const styles = getComputedStyle(element);
    const text = styles.getPropertyValue('--text-muted').trim() || '#666';
    const grid = styles.getPropertyValue('--border').trim() || '#ddd';
    // Stacked: each series drawn at the running sum, the last (tallest) first so the others paint over it.
    const sums: number[][] = [];
    let running = labels.map(() => 0);
    for (const entry of series) {
      running = running.map((value, index) => value + (entry.values[index] ?? 0));
      sums.push(running);
    }
    const bars = uPlot.paths.bars?.({ size: [0.7, 64], gap: 1 });
    const options: uPlot.Options = {
      width: Math.max(320, element.clientWidth),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      // Each bar is centred on its index: the scale reaches half a bar beyond the first and last, so neither is cut.
      scales: {
        x: { time: false, range: () => [-0.5, labels.length - 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      padding: [null, rightPadding(labels), null, null],
      axes: [
        {
          stroke: text,
          font: AXIS_FONT,
          grid: { show: false },
          ticks: { stroke: grid },
          // One tick per bar, labelled at most every `step`th so they never overlap.
          splits: () => labels.map((_, index) => index),
          values: (_u, splits) =>
            splits.map((split, index) =>
              index % Math.max(1, Math.ceil(labels.length / 8)) === 0 ? (labels[split] ?? '') : '',
            ),
        },
        {
          stroke: text,
          font: AXIS_FONT,
          grid: { stroke: grid, width: 1 },
          ticks: { stroke: grid, width: 1 },
          size: 40,
        },
      ],
      series: [
        {},
        ...[...series].reverse().map((entry) => ({
          label: entry.label,
          fill: entry.color,
          stroke: entry.color,
          width: 0,
          paths: bars,
          points: { show: false },
        })),
      ],
    };
    const data: uPlot.AlignedData = [labels.map((_, index) => index), ...[...sums].reverse()];
    const chart = new uPlot(options, data, element);
    plot.current = chart;
    const onClick = (): void => {
      const index = chart.cursor.idx;
      const top = chart.cursor.top;
      if (index === null || index === undefined || top === undefined || top < 0) return;
      const value = chart.posToVal(top, 'y');
      // The series whose band holds the pointer.
      const found = sums.findIndex((sum) => value <= (sum[index] ?? 0));
      if (found >= 0 && (series[found]?.values[index] ?? 0) > 0) pick.current(index, found);
    };
    chart.over.addEventListener('click', onClick);
    chart.over.style.cursor = 'pointer';
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(320, element.clientWidth), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.over.removeEventListener('click', onClick);
      chart.destroy();
      plot.current = null;
    };
  }, [labels, series, height, scheme]);

  const savePng = (): Promise<Blob> => {
    const canvas = plot.current?.ctx.canvas;
    if (!canvas) return Promise.reject(new Error('The chart is not drawn yet.'));
    // The settings pane's background, in the scheme shown.
    const pane = getComputedStyle(document.documentElement).getPropertyValue('--bg-pane').trim();
    return canvasPng(canvas, pane || '#ffffff');
  };

  return (
    <figure className="insights-chart" data-testid={`chart-${fileName}`}>
      <figcaption className="insights-chart-title">
        <span>{title}</span>
        <ChartExport title={title} fileName={fileName} svg={() => barsSvg(title, labels, series)} png={savePng} />
      </figcaption>
      <ul className="insights-legend" aria-hidden="true">
        {series.map((entry) => (
          <li key={entry.label}>
            <span className="insights-swatch" style={{ background: entry.color }} /> {entry.label}
          </li>
        ))}
      </ul>
      {/* The canvas is a picture for pointers; the table below holds the same figures for keyboards and screen readers. */}
      <div ref={holder} className="insights-canvas" aria-hidden="true" />
      <details className="insights-table">
        <summary>{title} as a table</summary>
        <div className="table-scroll">
          <table className="table" aria-label={title}>
            <thead>
              <tr>
                <th scope="col">Period</th>
                {series.map((entry) => (
                  <th scope="col" key={entry.label}>
                    {entry.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, index) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {series.map((entry, seriesIndex) => {
                    const value = entry.values[index] ?? 0;
                    return (
                      <td key={entry.label}>
                        {value === 0 ? (
                          '0'
                        ) : (
                          <button
                            type="button"
                            className="link-button"
                            onClick={() => onPick(index, seriesIndex)}
                            aria-label={`${value} ${entry.label}, ${label}: show the rows`}
                          >
                            {value}
                          </button>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
