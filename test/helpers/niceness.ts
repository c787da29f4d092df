import { readFileSync, readdirSync } from 'node:fs';

/** The nice value of each thread of a process (Linux, from /proc; field 19 of a task's stat). */
export function threadNiceness(pid: number | 'self' = 'self'): number[] {
  const values: number[] = [];
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      values.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended while being read.
    }
  }
  return values;
}

/** Child processes of `parent` whose command name is `name` (Linux, from /proc). */
export function childProcesses(parent: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && comm === name) found.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return found;
}
