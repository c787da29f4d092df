/** Progress of one table's copy. */
export interface TableProgress {
  advance(records: number): void;
  end(line: string): void;
}

export interface ProgressReporter {
  table(className: string, total: number): TableProgress;
}

/** Nothing shown (tests, `--quiet`). */
export const silentProgress: ProgressReporter = { table: () => ({ advance: () => {}, end: () => {} }) };

const BAR_WIDTH = 30;

/**
 * A bar redrawn in place on a terminal (at most every 100 ms), or a line per tenth of the table
 * when the output is a file or a pipe.
 */
export function streamProgress(out: { write(text: string): unknown; isTTY?: boolean }, now: () => number = Date.now): ProgressReporter {
  return {
    table(className, total) {
      let done = 0;
      let drawnAt = -Infinity;
      let lastTenth = 0;
      const draw = () => {
        const share = total > 0 ? Math.min(1, done / total) : 1;
        const filled = Math.round(share * BAR_WIDTH);
        out.write(`\r\x1b[2K${className} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${Math.floor(share * 100)}% ${done}/${total}`);
      };
      return {
        advance(records) {
          done += records;
          if (out.isTTY) {
            if (now() - drawnAt < 100) return;
            drawnAt = now();
            draw();
            return;
          }
          const tenth = total > 0 ? Math.floor((done / total) * 10) : 10;
          if (tenth > lastTenth && tenth < 10) out.write(`${className}: ${done}/${total}\n`);
          lastTenth = Math.max(lastTenth, tenth);
        },
        end(line) {
          if (out.isTTY) {
            draw();
            out.write('\n');
          }
          out.write(`${line}\n`);
        },
      };
    },
  };
}
