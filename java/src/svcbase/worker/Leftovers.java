package svcbase.worker;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.json.JSONObject;

/**
 * Work a function left running after its invocation: a thread that runs no invocation (a finalizer,
 * a cleaner, a pool thread of the JDK) and still burns CPU. Every `intervalMs` the CPU time of each
 * such thread is compared with the last look; one that used more than `maxCpuMs` in between ends
 * the JVM's usefulness: a `recycle` frame tells the host, which replaces the JVM. A thread that
 * started or ended an invocation between two looks is not judged on that interval.
 */
final class Leftovers {
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  /** Threads running an invocation now. */
  private final Map<Long, Boolean> running = new ConcurrentHashMap<>();
  /** Invocations each thread started, so a look spanning one is not counted against it. */
  private final Map<Long, Long> started = new ConcurrentHashMap<>();
  private final long readerId;

  Leftovers(long readerId) {
    this.readerId = readerId;
  }

  void began() {
    long id = Thread.currentThread().getId();
    started.merge(id, 1L, Long::sum);
    running.put(id, Boolean.TRUE);
  }

  void ended() {
    running.remove(Thread.currentThread().getId());
  }

  /** Starts the watch on a daemon thread of its own; nothing happens where thread CPU time cannot be measured. */
  void watch(Frames frames, long intervalMs, long maxCpuMs) {
    if (!threads.isThreadCpuTimeSupported()) return;
    threads.setThreadCpuTimeEnabled(true);
    Thread watcher = new Thread(() -> {
      Map<Long, long[]> last = new HashMap<>();
      long self = Thread.currentThread().getId();
      while (true) {
        try {
          Thread.sleep(intervalMs);
        } catch (InterruptedException e) {
          return;
        }
        Map<Long, long[]> now = new HashMap<>();
        for (long id : threads.getAllThreadIds()) {
          if (id == self || id == readerId || running.containsKey(id)) continue;
          long cpu = threads.getThreadCpuTime(id);
          if (cpu < 0) continue;
          long count = started.getOrDefault(id, 0L);
          now.put(id, new long[] {cpu, count});
          long[] before = last.get(id);
          if (before != null && before[1] == count && cpu - before[0] > maxCpuMs * 1_000_000L) {
            String name = String.valueOf(threads.getThreadInfo(id) == null ? id : threads.getThreadInfo(id).getThreadName());
            frames.write(new JSONObject().put("t", "recycle").put("reason", "a function left work running after its invocation (thread " + name + " used " + ((cpu - before[0]) / 1_000_000L) + " ms of CPU in " + intervalMs + " ms)"));
            return;
          }
        }
        last = now;
      }
    }, "svcbase-leftovers");
    watcher.setDaemon(true);
    watcher.start();
  }
}
