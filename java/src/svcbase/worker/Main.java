package svcbase.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.Permission;
import java.security.Policy;
import java.security.ProtectionDomain;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.json.JSONObject;
import svcbase.cloud.MemoryModule;
import svcbase.cloud.Modules;
import svcbase.cloud.Request;
import svcbase.cloud.Response;

/**
 * A long-lived JVM running the Java cloud functions of one application for the Node host
 * (src/functions/java). Frames on stdin/stdout (Frames.java); each invocation runs on its own thread
 * and blocks in its module calls until the host answers. Function classes load from directories
 * under the functions root given as the first argument; code from there runs with no permissions
 * at all (no files, sockets, processes, threads, properties or exit), and System.out is redirected
 * to stderr, so nothing a function does can write a frame. The JDK's common pool has no threads
 * (the host starts the JVM with its parallelism at 0), and work a function leaves running on a
 * thread of the JDK (a finalizer, a cleaner) is watched for (Leftovers): the host recycles the JVM.
 */
public final class Main {
  private static final Map<Long, Invocation> running = new ConcurrentHashMap<>();
  private static final Map<String, Method> entries = new ConcurrentHashMap<>();
  private static final MemoryModule memory = new MemoryModule();
  /** How often the leftover watch looks, and the CPU a thread outside any invocation may use between two looks. */
  private static final long LEFTOVER_INTERVAL_MS = 500;
  private static final long LEFTOVER_MAX_CPU_MS = 150;
  private static Leftovers leftovers;

  private Main() {}

  public static void main(String[] args) throws Exception {
    String functionsRoot = Path.of(args[0]).toAbsolutePath().toUri().toURL().toString();
    Frames frames = new Frames(new BufferedInputStream(new FileInputStream(FileDescriptor.in)), new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
    java.lang.System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
    lockDown(functionsRoot);
    leftovers = new Leftovers(Thread.currentThread().getId());
    leftovers.watch(frames, LEFTOVER_INTERVAL_MS, LEFTOVER_MAX_CPU_MS);
    ExecutorService threads = Executors.newCachedThreadPool((work) -> {
      Thread thread = new Thread(work, "svcbase-function");
      thread.setDaemon(true);
      return thread;
    });
    frames.write(new JSONObject().put("t", "ready"));
    while (true) {
      JSONObject frame = frames.read();
      if (frame == null) break;
      switch (frame.optString("t")) {
        case "invoke":
          threads.execute(() -> invoke(frames, frame));
          break;
        case "answer":
          Invocation target = running.get(frame.optLong("id"));
          if (target != null) target.answer(frame);
          break;
        default:
          break;
      }
    }
    java.lang.System.exit(0);
  }

  private static void invoke(Frames frames, JSONObject frame) {
    long id = frame.getLong("id");
    Invocation invocation = new Invocation(id, frames);
    running.put(id, invocation);
    leftovers.began();
    try {
      Method entry = entryOf(frame.getString("dir"), frame.getString("cls"));
      entry.invoke(null, new Request(frame.getJSONObject("request")), new Response(invocation), new Modules(invocation, memory));
      frames.write(new JSONObject().put("t", "end").put("id", id));
    } catch (InvocationTargetException e) {
      frames.write(new JSONObject().put("t", "fail").put("id", id).put("error", describe(e.getCause(), frame.optInt("lineOffset"))));
    } catch (Throwable e) {
      frames.write(new JSONObject().put("t", "fail").put("id", id).put("error", describe(e, 0)));
    } finally {
      leftovers.ended();
      running.remove(id);
    }
  }

  /** The exception, and the line of the function's own source it came from (`lineOffset`: the wrapper's lines before it). */
  private static String describe(Throwable error, int lineOffset) {
    String text = String.valueOf(error);
    for (StackTraceElement at : error.getStackTrace()) {
      if (at.getClassName().startsWith("SvcFn_")) return text + " (line " + (at.getLineNumber() - lineOffset) + ")";
    }
    return text;
  }

  private static Method entryOf(String dir, String className) throws Exception {
    String key = dir + "\u0000" + className;
    Method cached = entries.get(key);
    if (cached != null) return cached;
    URLClassLoader loader = new URLClassLoader(new URL[] {Path.of(dir).toUri().toURL()}, Main.class.getClassLoader());
    Method entry = loader.loadClass(className).getMethod("onRequest", Request.class, Response.class, Modules.class);
    entries.put(key, entry);
    return entry;
  }

  /** Function code (loaded from under `functionsRoot`) gets no permission; the JDK and this worker get all. */
  @SuppressWarnings("removal")
  private static void lockDown(String functionsRoot) {
    Policy.setPolicy(new Policy() {
      @Override
      public boolean implies(ProtectionDomain domain, Permission permission) {
        CodeSource source = domain.getCodeSource();
        if (source == null || source.getLocation() == null) return true;
        return !source.getLocation().toString().startsWith(functionsRoot);
      }
    });
    java.lang.System.setSecurityManager(new SecurityManager() {
      // The default manager lets any code start threads outside the root group: functions may not.
      @Override
      public void checkAccess(ThreadGroup group) {
        checkPermission(new RuntimePermission("modifyThreadGroup"));
      }

      @Override
      public void checkAccess(Thread thread) {
        checkPermission(new RuntimePermission("modifyThread"));
      }
    });
  }
}
