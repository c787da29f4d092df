import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

/**
 * How much lower than the request path work for one caller runs by default: deployed functions in
 * worker threads and JVMs (`functions.niceness`). A niceness of 10 gives a busy thread about a tenth
 * of the event loop's CPU share when both want the same core (Linux CFS weights 110 against 1024),
 * so a function burst or an allocation bomb cannot take the cores the main thread answers everyone
 * else's requests on, while on an otherwise idle machine it still runs at full speed (niceness only
 * matters under contention).
 */
export const BACKGROUND_NICENESS = 10;

/** Whether `value` is a niceness a process may give itself without privileges: an integer 0 to 19. */
export function isNiceness(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 19;
}

/**
 * Lowers the calling worker thread's scheduling priority to `niceness` (0 leaves it). Only on
 * Linux, where a thread's nice value is its own (setpriority on the calling task); elsewhere the same
 * call would lower the whole process, the event loop included, so it does nothing. Never from the
 * main thread. Raising niceness needs no privilege; a refusal (a seccomp profile, say) leaves the
 * thread as it was. Answers whether the priority was lowered.
 */
export function lowerThisWorkerThread(niceness: number = BACKGROUND_NICENESS): boolean {
  if (niceness === 0 || isMainThread || process.platform !== 'linux') return false;
  try {
    setPriority(niceness);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lowers a child process's priority to `niceness` (0 leaves it), best called after it has started
 * its threads (a JVM once it says it is ready). On Linux a nice value belongs to each thread, so
 * every thread the child has now is lowered (from /proc), and threads it starts later inherit the
 * value of the thread that starts them; elsewhere the process's priority is lowered. Answers whether
 * anything was lowered.
 */
export function lowerChildProcess(pid: number | undefined, niceness: number = BACKGROUND_NICENESS): boolean {
  if (pid === undefined || niceness === 0) return false;
  let tasks: number[] = [pid];
  if (process.platform === 'linux') {
    try {
      tasks = readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return false;
    }
  }
  let lowered = false;
  for (const task of tasks) {
    try {
      setPriority(task, niceness);
      lowered = true;
    } catch {
      // The thread ended meanwhile, or the system refused: the others are still lowered.
    }
  }
  return lowered;
}
