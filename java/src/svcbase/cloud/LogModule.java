package svcbase.cloud;

/** `modules.oLog`: lines at or above `level` go to the function's log (`GET /1/cloudCode/:name/logs`). */
public final class LogModule {
  public static final int Level_All = 0;
  public static final int Level_Debug = 1;
  public static final int Level_Warn = 2;
  public static final int Level_Error = 3;

  /** Lines below this level are dropped. */
  public int level = Level_All;
  private final Channel channel;

  LogModule(Channel channel) {
    this.channel = channel;
  }

  private void line(int at, String name, String text) {
    if (at >= level) channel.log(name, text);
  }

  public void d(Object message) { line(Level_Debug, "debug", String.valueOf(message)); }
  public void w(Object message) { line(Level_Warn, "warn", String.valueOf(message)); }
  public void e(Object message) { line(Level_Error, "error", String.valueOf(message)); }
  public void debug(String format, Object... args) { line(Level_Debug, "debug", String.format(format, args)); }
  public void warn(String format, Object... args) { line(Level_Warn, "warn", String.format(format, args)); }
  public void error(String format, Object... args) { line(Level_Error, "error", String.format(format, args)); }
}
