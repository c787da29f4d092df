package svcbase.cloud;

import java.util.Date;

/** What every Java function's class extends: the hosted service's static helpers, callable without a prefix. */
public abstract class FunctionBase {
  protected FunctionBase() {}

  /** Epoch milliseconds now (`System.currentTimeMillis()` is not allowed in functions). */
  public static long getTime() {
    return new Date().getTime();
  }

  public static String fmt(String format, Object... args) {
    return String.format(format, args);
  }

  public static boolean isStrEmpty(String s) {
    return s == null || s.isEmpty();
  }

  /** `System.arraycopy`, which functions cannot name. */
  public static void arraycopy(Object src, int srcPos, Object dest, int destPos, int length) {
    java.lang.System.arraycopy(src, srcPos, dest, destPos, length);
  }
}
