import type { ChildProcess } from 'node:child_process';

/** Reads a child's stdout line by line: each call resolves with the next line. */
export function lineReader(child: ChildProcess): () => Promise<string> {
  const queue: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else queue.push(line);
    }
  });
  return () =>
    new Promise((resolve) => {
      const line = queue.shift();
      if (line !== undefined) resolve(line);
      else waiting.push(resolve);
    });
}
