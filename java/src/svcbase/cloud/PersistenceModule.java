package svcbase.cloud;

import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * `modules.oPersistence`: byte items per application kept by the server (50 items, 10 MB each and in
 * all), addressed by a path of parts; one read and one write (or delete) per execution. Unreliable,
 * as on the hosted service: keep nothing there that cannot be rebuilt.
 */
public final class PersistenceModule {
  private static final Pattern PART = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private final Channel channel;

  PersistenceModule(Channel channel) {
    this.channel = channel;
  }

  /** The item at `a/b/c` (`get("a", "b", "c")`); null for an illegal path (1 to 8 parts of letters, digits, `_`, `.`, `-`). */
  public PersistenceItem get(String... pathParts) {
    if (pathParts == null || pathParts.length == 0 || pathParts.length > 8) return null;
    for (String part : pathParts) if (part == null || !PART.matcher(part).matches() || part.equals(".") || part.equals("..")) return null;
    return new PersistenceItem(channel, String.join("/", pathParts));
  }

  /** Nested sizes of every item: `{"a": {"b": 12}}`. */
  public JSONObject getStruct() {
    JSONObject answer = channel.call("javaPersistence", "struct", new JSONArray());
    return answer.optBoolean("ok") ? answer.getJSONObject("value") : new JSONObject();
  }
}
