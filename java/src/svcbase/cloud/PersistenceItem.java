package svcbase.cloud;

import java.util.Base64;
import org.json.JSONArray;
import org.json.JSONObject;

/** One item of oPersistence. Refused operations (limits, the once-per-execution rule) answer false, -1 or 0. */
public final class PersistenceItem {
  private final Channel channel;
  private final String path;

  PersistenceItem(Channel channel, String path) {
    this.channel = channel;
    this.path = path;
  }

  private JSONObject call(String method, Object... args) {
    JSONArray list = new JSONArray().put(path);
    for (Object arg : args) list.put(arg);
    return channel.call("javaPersistence", method, list);
  }

  /** Bytes stored (0 when the item does not exist). */
  public long size() {
    JSONObject answer = call("size");
    return answer.optBoolean("ok") ? answer.optLong("value") : 0;
  }

  public boolean write(byte[] data) {
    return write(data, false);
  }

  /** Replaces the item's bytes, or appends to them; false past a limit or a second write in this execution. */
  public boolean write(byte[] data, boolean append) {
    return call("write", Base64.getEncoder().encodeToString(data), append).optBoolean("ok");
  }

  public int read(byte[] buff) {
    return read(buff, 0);
  }

  /** Copies the item's bytes from `skip` into `buff`; the count copied, or -1 (no item, nothing left, a second read). */
  public int read(byte[] buff, long skip) {
    JSONObject answer = call("read");
    if (!answer.optBoolean("ok") || answer.opt("value") == JSONObject.NULL) return -1;
    byte[] data = Base64.getDecoder().decode(answer.optString("value"));
    if (skip < 0 || skip >= data.length) return -1;
    int n = (int) Math.min(buff.length, data.length - skip);
    java.lang.System.arraycopy(data, (int) skip, buff, 0, n);
    return n;
  }

  public boolean delete() {
    JSONObject answer = call("delete");
    return answer.optBoolean("ok") && answer.optBoolean("value");
  }
}
