package svcbase.cloud;

import java.nio.charset.StandardCharsets;
import org.json.JSONObject;

/** What oData and oHttp calls return: `err` (null on success), `res` (status), the body as bytes, text and JSON. */
public final class HttpResponse {
  public String err;
  public ResponseStatus res = new ResponseStatus();
  public byte[] data = new byte[0];
  public String stringData = "";
  public JSONObject jsonData;

  static HttpResponse ofText(int code, String status, String text) {
    HttpResponse out = new HttpResponse();
    out.res.code = code;
    out.res.status = status;
    out.stringData = text;
    out.data = text.getBytes(StandardCharsets.UTF_8);
    try {
      if (text.startsWith("{")) out.jsonData = new JSONObject(text);
    } catch (RuntimeException e) {
      out.jsonData = null;
    }
    return out;
  }

  /** A host answer `{ok, value}` or `{ok:false, code, error, status}` as an HttpResponse (the value's JSON text as the body). */
  static HttpResponse ofHost(JSONObject answer) {
    if (answer.optBoolean("ok")) return ofText(200, "OK", JSONObject.valueToString(answer.opt("value")));
    JSONObject body = new JSONObject().put("code", answer.optInt("code")).put("error", answer.optString("error"));
    HttpResponse out = ofText(answer.optInt("status", 400), "Error", body.toString());
    out.err = answer.optString("error");
    return out;
  }

  @Override
  public String toString() {
    return new JSONObject().put("err", err == null ? JSONObject.NULL : err).put("res", new JSONObject(res.toString())).put("stringData", stringData).toString();
  }
}
