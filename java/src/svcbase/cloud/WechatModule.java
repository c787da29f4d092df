package svcbase.cloud;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * `modules.oWechat`: the mini program's access token and customer-service messages, through the
 * server's platform client (its token cache is shared by every instance). Without the platform
 * configured (`featureSettings.wechat.miniProgram`) and no `initWechatApp`, calls answer 11205.
 */
public final class WechatModule {
  private final Channel channel;
  private String appId;
  private String appSecret;
  private String token;

  WechatModule(Channel channel) {
    this.channel = channel;
  }

  /** Use this token for the following sends (as given: it is not renewed when stale). */
  public void setAccessToken(String accessToken) {
    this.token = accessToken;
  }

  /** Act for another mini program than the configured one. */
  public void initWechatApp(String appId, String appSecret) {
    this.appId = appId;
    this.appSecret = appSecret;
    this.token = null;
  }

  private JSONObject account() {
    JSONObject params = new JSONObject();
    if (appId != null) params.put("appId", appId).put("secret", appSecret);
    return params;
  }

  /** The access token (the set one, else the platform's cached token); null when the platform refuses. */
  public String getAccessToken() {
    if (token != null) return token;
    JSONObject answer = channel.call("javaWechat", "token", new JSONArray().put(account()));
    return answer.optBoolean("ok") ? answer.optString("value") : null;
  }

  /** The platform's token is its stable token, valid for its whole life: the cache is always used. */
  public String getAccessToken(boolean useCache) {
    return getAccessToken();
  }

  /**
   * A customer-service message to `openId`: `type` `text` (msg: the text), `image` (msg: a media_id)
   * or `link` (msg: a JSONObject with title, description, url, thumb_url).
   */
  public HttpResponse sendWechatAppMsg(String openId, String type, Object msg) {
    JSONObject content;
    if ("text".equals(type)) content = new JSONObject().put("content", String.valueOf(msg));
    else if ("image".equals(type)) content = new JSONObject().put("media_id", String.valueOf(msg));
    else if ("link".equals(type) && msg instanceof JSONObject) content = (JSONObject) msg;
    else {
      HttpResponse out = HttpResponse.ofText(400, "Error", new JSONObject().put("code", 11005).put("error", "type must be text, image or link (a JSONObject)").toString());
      out.err = "type must be text, image or link (a JSONObject)";
      return out;
    }
    JSONObject message = new JSONObject().put("touser", openId).put("msgtype", type).put(type, content);
    JSONObject params = account().put("message", message);
    if (token != null) params.put("token", token);
    return HttpResponse.ofHost(channel.call("javaWechat", "send", new JSONArray().put(params)));
  }

  /** Whether a request is the platform's: its `signature` is SHA-1 of the sorted (token, timestamp, nonce). */
  public boolean isWechatRequest(String token, Request request) {
    String signature = request.getQueryParam("signature");
    String timestamp = request.getQueryParam("timestamp");
    String nonce = request.getQueryParam("nonce");
    if (token == null || signature == null || timestamp == null || nonce == null) return false;
    String[] parts = {token, timestamp, nonce};
    Arrays.sort(parts);
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(String.join("", parts).getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) hex.append(String.format("%02x", b));
      return MessageDigest.isEqual(hex.toString().getBytes(StandardCharsets.UTF_8), signature.toLowerCase().getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      return false;
    }
  }
}
