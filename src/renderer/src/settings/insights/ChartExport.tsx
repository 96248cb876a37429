import { useState } from 'react';
import { DownloadIcon } from '../../components/icons';
import { errorText } from '../common';
import { saveBlob } from '../audit/export-download';
import { svgPng } from './chart-svg';

/**
 * A chart's PNG and SVG buttons (docs/user/insights.md#exports): the SVG drawn from the chart's figures, the PNG from
 * the picture on screen where there is one (a canvas), else from that SVG.
 */
export function ChartExport({
  title,
  fileName,
  svg,
  png,
}: {
  title: string;
  fileName: string;
  svg(): string;
  png?: () => Promise<Blob>;
}): React.JSX.Element {
  const [problem, setProblem] = useState<string | null>(null);
  const savePng = (): void => {
    setProblem(null);
    (png ?? (() => svgPng(svg())))().then(
      (blob) => saveBlob(blob, `${fileName}.png`),
      (failure: unknown) => setProblem(errorText(failure)),
    );
  };
  const saveSvg = (): void => saveBlob(new Blob([svg()], { type: 'image/svg+xml' }), `${fileName}.svg`);
  return (
    <span className="insights-chart-actions">
      <button type="button" className="button button-small" onClick={savePng} aria-label={`Save “${title}” as PNG`}>
        <DownloadIcon size={12} /> PNG
      </button>
      <button type="button" className="button button-small" onClick={saveSvg} aria-label={`Save “${title}” as SVG`}>
        <DownloadIcon size={12} /> SVG
      </button>
      {problem && (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      )}
    </span>
  );
}
