package svcbase.cloud;

import java.nio.charset.StandardCharsets;
import org.json.JSONObject;

/** The function's reply: `send` once (byte[] raw, anything else as its text in UTF-8), with an optional status, message and headers. */
public final class Response {
  private final Channel channel;
  private JSONObject cors;

  public Response(Channel channel) {
    this.channel = channel;
  }

  public void send(Object res) { send(res, 200, null, null); }
  public void send(Object res, int statusCode) { send(res, statusCode, null, null); }
  public void send(Object res, int statusCode, String statusMsg) { send(res, statusCode, statusMsg, null); }

  public void send(Object res, int statusCode, String statusMsg, JSONObject headers) {
    JSONObject all = new JSONObject();
    if (cors != null) for (String key : cors.keySet()) all.put(key, cors.get(key));
    if (headers != null) for (String key : headers.keySet()) all.put(key, headers.opt(key) == JSONObject.NULL ? "" : String.valueOf(headers.opt(key)));
    if (res instanceof byte[]) channel.send(((byte[]) res).clone(), false, statusCode, statusMsg, all);
    else channel.send(String.valueOf(res).getBytes(StandardCharsets.UTF_8), true, statusCode, statusMsg, all);
  }

  /** CORS headers of the reply; call before `send`. */
  public void setAllowCross(boolean isAllow, String host, String contentType, String[] methods, String[] allowHeaders, String[] exposeHeaders) {
    if (!isAllow) {
      cors = null;
      return;
    }
    cors = new JSONObject();
    cors.put("Access-Control-Allow-Origin", host == null || host.isEmpty() ? "*" : host);
    if (contentType != null && !contentType.isEmpty()) cors.put("Content-Type", contentType);
    if (methods != null && methods.length > 0) cors.put("Access-Control-Allow-Methods", String.join(", ", methods));
    if (allowHeaders != null && allowHeaders.length > 0) cors.put("Access-Control-Allow-Headers", String.join(", ", allowHeaders));
    if (exposeHeaders != null && exposeHeaders.length > 0) cors.put("Access-Control-Expose-Headers", String.join(", ", exposeHeaders));
  }
}
