package svcbase.cloud;

import java.util.Base64;
import java.util.Iterator;
import org.json.JSONArray;
import org.json.JSONObject;

/** The call as the function sees it (rest-facts §7.3): path, method, headers (values are arrays), body, query and JSON-body params. */
public final class Request {
  private final JSONObject from;
  private final byte[] body;

  public Request(JSONObject from) {
    this.from = from;
    this.body = Base64.getDecoder().decode(from.optString("body"));
  }

  public String getPath() { return from.optString("path"); }
  public String getMethod() { return from.optString("method"); }
  public JSONObject getHeaders() { JSONObject h = from.optJSONObject("headers"); return h == null ? new JSONObject() : new JSONObject(h.toString()); }
  public byte[] getBody() { return body.clone(); }
  public JSONObject getQueryParams() { JSONObject q = from.optJSONObject("query"); return q == null ? new JSONObject() : new JSONObject(q.toString()); }
  public JSONObject getParams() { JSONObject p = from.optJSONObject("params"); return p == null ? new JSONObject() : new JSONObject(p.toString()); }

  /** The first value of a header, by name in any letter case; null when absent. */
  public String getHeader(String key) {
    JSONObject headers = from.optJSONObject("headers");
    if (headers == null || key == null) return null;
    for (Iterator<String> it = headers.keys(); it.hasNext(); ) {
      String name = it.next();
      if (!name.equalsIgnoreCase(key)) continue;
      JSONArray values = headers.optJSONArray(name);
      return values == null || values.length() == 0 ? null : values.optString(0);
    }
    return null;
  }

  public String getQueryParam(String key) {
    JSONObject q = from.optJSONObject("query");
    return q == null || !q.has(key) ? null : q.optString(key);
  }
}
