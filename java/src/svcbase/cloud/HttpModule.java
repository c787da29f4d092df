package svcbase.cloud;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * `modules.oHttp`: one outbound request per execution, sent by the host with the same guard as the
 * Node functions' oHttp (timeout, size cap, no private addresses). A second request answers an
 * HttpResponse whose `err` says so.
 */
public final class HttpModule {
  private final Channel channel;

  HttpModule(Channel channel) {
    this.channel = channel;
  }

  public HttpResponse get(String url) {
    return request(url, "GET", null, null, 0);
  }

  public HttpResponse post(String url, String contentType, byte[] data) {
    return request(url, "POST", new JSONObject().put("Content-Type", contentType), data, 0);
  }

  public HttpResponse post(String url, JSONObject json) {
    return request(url, "POST", new JSONObject().put("Content-Type", "application/json"), json.toString().getBytes(StandardCharsets.UTF_8), 0);
  }

  public HttpResponse post(String url, Map<String, String> form) {
    StringBuilder body = new StringBuilder();
    for (Map.Entry<String, String> e : form.entrySet()) {
      if (body.length() > 0) body.append('&');
      body.append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8)).append('=').append(URLEncoder.encode(e.getValue() == null ? "" : e.getValue(), StandardCharsets.UTF_8));
    }
    return request(url, "POST", new JSONObject().put("Content-Type", "application/x-www-form-urlencoded"), body.toString().getBytes(StandardCharsets.UTF_8), 0);
  }

  /** `timeout` in ms (0: the server's); at most the server's oHttp timeout. */
  public HttpResponse request(String url, String method, JSONObject headers, byte[] data, int timeout) {
    JSONObject params = new JSONObject().put("url", url).put("method", method == null ? "GET" : method).put("headers", headers == null ? new JSONObject() : headers).put("timeout", timeout);
    if (data != null) params.put("body", Base64.getEncoder().encodeToString(data));
    JSONObject answer = channel.call("javaHttp", "request", new JSONArray().put(params));
    if (!answer.optBoolean("ok")) return HttpResponse.ofHost(answer);
    JSONObject reply = answer.getJSONObject("value");
    HttpResponse out = new HttpResponse();
    out.res.code = reply.optInt("statusCode");
    out.res.status = reply.optString("statusText");
    out.res.headers = reply.optJSONObject("headers") == null ? new JSONObject() : reply.getJSONObject("headers");
    out.data = Base64.getDecoder().decode(reply.optString("body"));
    out.stringData = new String(out.data, StandardCharsets.UTF_8);
    try {
      if (out.stringData.startsWith("{")) out.jsonData = new JSONObject(out.stringData);
    } catch (RuntimeException e) {
      out.jsonData = null;
    }
    return out;
  }
}
