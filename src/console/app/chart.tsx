import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

const COLORS = ['#1a56c4', '#c0392b', '#1c8a4a', '#b8860b', '#7b3fb5', '#0f8a94', '#c2185b', '#5d6d7e', '#e67e22', '#2e4053'];

export interface ChartSeries {
  readonly label: string;
  /** One value per x (null: no value there). */
  readonly values: ReadonlyArray<number | null>;
}

/**
 * A time-series chart drawn by uPlot (docs/decisions.md): x in epoch seconds, one line per series
 * (or bars with `bars`, where x is an index and `categories` names them). The plot follows its
 * box's width; a change of the series' labels makes a new plot, new values only redraw.
 */
export function Chart(props: { title: string; unit: string; x: readonly number[]; series: readonly ChartSeries[]; bars?: boolean; categories?: readonly string[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = props.series.map((s) => s.label).join('\n');
  const data = (): uPlot.AlignedData => [props.x as number[], ...props.series.map((s) => s.values as Array<number | null>)];

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const categories = props.categories ?? [];
    const options: uPlot.Options = {
      width: Math.max(240, element.clientWidth),
      height: 180,
      ...(props.bars ? { scales: { x: { time: false, range: (_u: uPlot, _min: number, max: number) => [-0.5, Math.max(max, 0) + 0.5] as uPlot.Range.MinMax } } } : {}),
      axes: [
        props.bars ? { values: (_u, ticks) => ticks.map((t) => categories[t] ?? '') } : {},
        { label: props.unit, size: 56 },
      ],
      series: [
        {},
        ...props.series.map((s, i) => ({
          label: s.label,
          stroke: COLORS[i % COLORS.length]!,
          width: 2,
          ...(props.bars ? { fill: `${COLORS[i % COLORS.length]!}99`, paths: uPlot.paths.bars!({ size: [0.6, 64] }), points: { show: false } } : { spanGaps: false }),
        })),
      ],
      legend: { live: false },
    };
    const made = new uPlot(options, data(), element);
    plot.current = made;
    const observer = new ResizeObserver(() => made.setSize({ width: Math.max(240, element.clientWidth), height: 180 }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      made.destroy();
      plot.current = null;
    };
  }, [labels, props.bars]);

  useEffect(() => {
    plot.current?.setData(data());
  });

  const empty = props.series.every((s) => s.values.every((value) => value === null || value === 0));
  return (
    <figure class="chart" aria-label={props.title}>
      <figcaption>{props.title}</figcaption>
      <div class="plot">
        <div ref={box} />
        {empty && <p class="empty">Nothing yet</p>}
      </div>
    </figure>
  );
}
