package svcbase.cloud;

import org.json.JSONObject;

/** The status part of an HttpResponse. */
public final class ResponseStatus {
  public int code;
  public String status;
  public JSONObject headers = new JSONObject();

  @Override
  public String toString() {
    return new JSONObject().put("code", code).put("status", status).put("headers", headers).toString();
  }
}
