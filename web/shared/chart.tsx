/**
 * A small stacked bar chart drawn as inline SVG (one bar per day, one colour per series), with a table of the
 * same numbers for screen readers and anyone who prefers figures. No chart library: the budget is 150 kB.
 */
import { useId } from 'preact/hooks';

export interface Series {
  name: string;
  values: number[];
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD_LEFT = 56;
const PAD_BOTTOM = 24;
const PAD_TOP = 8;

/** The last `count` UTC days ending today, as `YYYY-MM-DD`. */
export function lastDays(count: number, now = Date.now()): string[] {
  const today = Math.floor(now / 86_400_000);
  return Array.from({ length: count }, (_, index) => new Date((today - count + 1 + index) * 86_400_000).toISOString().slice(0, 10));
}

export function BarChart(props: { title: string; days: string[]; series: Series[]; format: (value: number) => string; empty?: string }) {
  const id = useId();
  const { days, series, format } = props;
  const totals = days.map((_, day) => series.reduce((sum, one) => sum + Math.max(0, one.values[day] ?? 0), 0));
  const max = Math.max(0, ...totals);
  const plotWidth = WIDTH - PAD_LEFT - 4;
  const plotHeight = HEIGHT - PAD_BOTTOM - PAD_TOP;
  const slot = plotWidth / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => (max === 0 ? 0 : (value / max) * plotHeight);
  const summary =
    max === 0
      ? (props.empty ?? 'Nothing in this period.')
      : `Highest day ${format(max)}; total ${format(totals.reduce((a, b) => a + b, 0))}.`;
  return (
    <figure class="chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>
        <strong>{props.title}</strong> <span class="muted">{summary}</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-caption`} class="chart-svg">
        <line x1={PAD_LEFT} y1={PAD_TOP + plotHeight} x2={WIDTH} y2={PAD_TOP + plotHeight} class="chart-axis" />
        {max > 0 ? (
          <>
            <text x={PAD_LEFT - 6} y={PAD_TOP + 10} class="chart-label" text-anchor="end">
              {format(max)}
            </text>
            <text x={PAD_LEFT - 6} y={PAD_TOP + plotHeight} class="chart-label" text-anchor="end">
              0
            </text>
          </>
        ) : null}
        {days.map((day, index) => {
          let base = PAD_TOP + plotHeight;
          return (
            <g key={day}>
              {series.map((one, at) => {
                const height = y(Math.max(0, one.values[index] ?? 0));
                base -= height;
                return height > 0 ? (
                  <rect
                    key={one.name}
                    x={PAD_LEFT + index * slot + (slot - barWidth) / 2}
                    y={base}
                    width={barWidth}
                    height={height}
                    class={`chart-series-${at % 6}`}
                  >
                    <title>{`${day} · ${one.name}: ${format(one.values[index] ?? 0)}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
        {days.length > 0 ? (
          <>
            <text x={PAD_LEFT} y={HEIGHT - 6} class="chart-label">
              {days[0]}
            </text>
            <text x={WIDTH - 2} y={HEIGHT - 6} class="chart-label" text-anchor="end">
              {days[days.length - 1]}
            </text>
          </>
        ) : null}
      </svg>
      {series.length > 1 ? (
        <ul class="chart-legend" aria-label="Legend">
          {series.map((one, at) => (
            <li key={one.name}>
              <span class={`chart-swatch chart-series-${at % 6}`} aria-hidden="true" /> {one.name}
            </li>
          ))}
        </ul>
      ) : null}
      <details>
        <summary>Show as table</summary>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((one) => (
                  <th scope="col" key={one.name}>
                    {one.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, index) =>
                totals[index] ? (
                  <tr key={day}>
                    <th scope="row">{day}</th>
                    {series.map((one) => (
                      <td key={one.name}>{format(one.values[index] ?? 0)}</td>
                    ))}
                  </tr>
                ) : null,
              )}
            </tbody>
          </table>
          {max === 0 ? <p class="muted">{props.empty ?? 'Nothing in this period.'}</p> : null}
        </div>
      </details>
    </figure>
  );
}
