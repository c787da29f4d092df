/** Structured logger port. svcbase never writes to the console itself. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Discards everything: the default. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that writes one line per entry to the given sink (the host opts in, e.g. examples). */
export function lineLogger(write: (line: string) => void, minLevel: 'debug' | 'info' | 'warn' | 'error' = 'info'): Logger {
  const order = { debug: 0, info: 1, warn: 2, error: 3 } as const;
  const make = (level: keyof typeof order) => (message: string, fields?: Record<string, unknown>) => {
    if (order[level] < order[minLevel]) return;
    write(`${level.toUpperCase()} ${message}${fields ? ' ' + JSON.stringify(fields) : ''}`);
  };
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}
