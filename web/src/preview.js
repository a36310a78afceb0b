// The chart while `canopy view` loads the samples of a large recording: the tree's
// resident total from the tick table (GET /api/recording answers it with
// "loading": true, see web/API.md), drawn as steps, with the header and a status line.
// It is replaced by the full page (controller.js) when the recording has loaded.

import uPlot from 'uplot';
import { makeAxes, yTitle } from './chart_axes.js';
import { byTestId } from './dom.js';
import { renderHeader } from './header.js';
import { timeFormat } from './time_format.js';

const kFill = 'rgba(31, 35, 40, 0.12)';
const kStroke = '#1f2328';

// The preview's points: x in seconds since the recording's start, y in bytes.
export function previewData(recording) {
  const total = recording.total || { t: [], values: [] };
  const startMs = previewStart(recording);
  return [total.t.map((t) => (t - startMs) / 1000), total.values.slice()];
}

function previewStart(recording) {
  const meta = recording.meta || {};
  const t = (recording.total && recording.total.t) || [];
  return meta.start_ms != null ? meta.start_ms : t[0] || 0;
}

// The x range the full chart opens with: the whole recording, in seconds.
function previewSpan(recording) {
  const meta = recording.meta || {};
  const t = (recording.total && recording.total.t) || [];
  const end = meta.end_ms != null ? meta.end_ms : t.at(-1) || 0;
  return Math.max(1, (end - previewStart(recording)) / 1000);
}

export class LoadingPreview {
  constructor(recording, sourceKind) {
    renderHeader(document.body, recording, sourceKind);
    this.status = byTestId('status');
    this.status.textContent = 'loading the processes… (the tree’s total meanwhile)';
    const plot = byTestId('chart').querySelector('.chart-plot');
    const { width, height } = plot.parentElement.getBoundingClientRect();
    const startMs = previewStart(recording);
    const time = timeFormat({ startMs }); // the wall-clock switch comes with the full page
    this.u = new uPlot(
      {
        width: Math.max(200, Math.floor(width)),
        height: Math.max(160, Math.floor(height) || 320),
        legend: { show: false },
        cursor: { show: false },
        padding: [12, 28, 0, 0],
        scales: { x: { time: false, range: () => [0, previewSpan(recording)] }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.05 : 1] } },
        axes: makeAxes(() => 'bytes', {
          timeOf: () => time,
          startMs,
          xTitle: () => time.title,
          yTitleOf: () => yTitle('Resident, the tree’s total', 'bytes'),
        }),
        series: [{}, { label: 'Tree total', stroke: kStroke, fill: kFill, width: 1, points: { show: false }, paths: uPlot.paths.stepped({ align: 1 }) }],
      },
      previewData(recording),
      plot,
    );
  }

  remove() {
    this.u.destroy();
    this.status.textContent = '';
  }
}
