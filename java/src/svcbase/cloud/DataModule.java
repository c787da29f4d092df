package svcbase.cloud;

import org.json.JSONArray;
import org.json.JSONObject;

/**
 * `modules.oData`: the data API, run by the host as the function's caller through the same services
 * as REST (ACLs, class permissions, hooks, realtime). Synchronous: each call blocks until the host
 * answers. `setUserSession` / `setMasterKey` change who the following calls act as.
 */
public final class DataModule {
  private final Channel channel;

  DataModule(Channel channel) {
    this.channel = channel;
  }

  private HttpResponse call(String module, String method, Object... args) {
    JSONArray list = new JSONArray();
    for (Object arg : args) list.put(arg);
    return HttpResponse.ofHost(channel.call(module, method, list));
  }

  private DataModule header(String name, String value) {
    return setHeader(new JSONObject().put(name, value));
  }

  /** Kept for compatibility: calls run in the host, bounded by the function's own timeout. */
  public DataModule setTimeout(int ms) { return this; }
  public DataModule setUserSession(String sessionToken) { return header("X-Bmob-Session-Token", sessionToken); }
  public DataModule setMasterKey(String masterKey) { return header("X-Bmob-Master-Key", masterKey); }

  /** `setHeader("X-Bmob-Master-Key", key)` or `setHeader("X-Bmob-Session-Token", token)`. */
  public DataModule setHeader(String... pairs) {
    JSONObject headers = new JSONObject();
    for (int i = 0; i + 1 < pairs.length; i += 2) headers.put(pairs[i], pairs[i + 1]);
    return setHeader(headers);
  }

  /** Throws IllegalArgumentException when the host refuses the headers (a master key that is not the application's). */
  public DataModule setHeader(JSONObject headers) {
    JSONObject answer = channel.call("oData", "setHeader", new JSONArray().put(headers));
    if (!answer.optBoolean("ok")) throw new IllegalArgumentException(answer.optString("error"));
    return this;
  }

  public HttpResponse insert(String table, JSONObject data) { return call("oData", "insert", new JSONObject().put("table", table).put("data", data)); }
  public HttpResponse remove(String table, String objectId) { return call("oData", "remove", new JSONObject().put("table", table).put("objectId", objectId)); }
  public HttpResponse update(String table, String objectId, JSONObject data) { return call("oData", "update", new JSONObject().put("table", table).put("objectId", objectId).put("data", data)); }
  public HttpResponse findOne(String table, String objectId) { return call("oData", "findOne", new JSONObject().put("table", table).put("objectId", objectId)); }
  public HttpResponse find(Querier query) { return call("oData", "find", query.toParams()); }

  /** A BQL statement with `?` placeholders and their values. */
  public HttpResponse bql(String bql, Object... values) {
    JSONArray list = new JSONArray();
    for (Object value : values) list.put(value);
    return call("oBql", "exec", new JSONObject().put("bql", bql).put("values", list));
  }

  /** Another cloud function of the application (its reply as the body). */
  public HttpResponse cloudCode(String funcName, JSONObject body) { return call("oFunctions", "run", new JSONObject().put("name", funcName).put("data", body == null ? new JSONObject() : body)); }

  /** `POST /1/batch` with these requests (`[{method, path, body}]`). */
  public HttpResponse batch(JSONArray requests) { return call("oBatch", "exec", new JSONObject().put("data", new JSONObject().put("requests", requests))); }

  public HttpResponse userSignUp(JSONObject data) { return call("oData", "userSignUp", new JSONObject().put("data", data)); }
  public HttpResponse userLogin(String username, String password) { return call("oData", "userLogin", new JSONObject().put("username", username).put("password", password)); }
  /** Mails a password-reset link (`/1/requestPasswordReset`). */
  public HttpResponse userResetPasswordByEmail(String email) { return call("oData", "userRestPassword", new JSONObject().put("data", new JSONObject().put("email", email))); }

  /** Signs up or logs in by phone with an SMS code (`userInfo`: more fields for a new user, may be null). */
  public HttpResponse userLoginBySMS(String mobile, String smsCode, JSONObject userInfo) {
    return call("javaUsers", "loginBySms", new JSONObject().put("mobile", mobile).put("smsCode", smsCode).put("userInfo", userInfo == null ? new JSONObject() : userInfo));
  }

  /** Sets a new password with an SMS code sent to the user's phone (`/1/resetPasswordBySmsCode`). */
  public HttpResponse userResetPasswordBySMS(String smsCode, String password) { return call("javaUsers", "resetBySms", new JSONObject().put("smsCode", smsCode).put("password", password)); }

  /** Changes a user's password with its session and old password (`/1/updateUserPassword`). */
  public HttpResponse userResetPasswordByPWD(String userId, String session, String oldPassword, String newPassword) {
    return call("javaUsers", "resetByPassword", new JSONObject().put("userId", userId).put("session", session).put("oldPassword", oldPassword).put("newPassword", newPassword));
  }

  /** Stores a file of the application: `{"cdn", "filename", "url"}`; the type comes from the name and the bytes. */
  public HttpResponse uploadfile(String fileName, byte[] data) { return uploadfile(fileName, data, null); }

  /** `contentType` is accepted for compatibility: the stored type comes from the name and the bytes. */
  public HttpResponse uploadfile(String fileName, byte[] data, String contentType) {
    return call("javaFiles", "upload", new JSONObject().put("filename", fileName).put("data", java.util.Base64.getEncoder().encodeToString(data)));
  }

  /** Deletes one file of the application by its url (`cdnName` is accepted for compatibility). */
  public HttpResponse deletefile(String cdnName, String url) { return call("javaFiles", "delete", new JSONObject().put("urls", new JSONArray().put(url)).put("single", true)); }

  /** Deletes files by url, `{"upyun": [urls...]}` as `/2/cdnBatchDelete` takes them: `{"msg":"ok"}` or the ones that failed in `fail`. */
  public HttpResponse deletefiles(JSONObject byCdn) {
    JSONArray urls = new JSONArray();
    for (String cdn : byCdn.keySet()) {
      JSONArray list = byCdn.optJSONArray(cdn);
      if (list != null) for (Object url : list) urls.put(url);
    }
    return call("javaFiles", "delete", new JSONObject().put("urls", urls));
  }

  /** A role (`/1/roles`): `{"name", "users"?, "roles"?, "ACL"?}`; roles are records of `_Role`. */
  public HttpResponse roleInsert(JSONObject data) { return call("oData", "insert", new JSONObject().put("table", "_Role").put("data", data)); }
  public HttpResponse roleFindOne(String roleId) { return call("oData", "findOne", new JSONObject().put("table", "_Role").put("objectId", roleId)); }
  public HttpResponse roleUpdate(String roleId, JSONObject data) { return call("oData", "update", new JSONObject().put("table", "_Role").put("objectId", roleId).put("data", data)); }
  public HttpResponse roleDelete(String roleId) { return call("oData", "remove", new JSONObject().put("table", "_Role").put("objectId", roleId)); }

  /** Sends a verification code with an approved code template (`requestSmsCode`; `template` may be null for the default). */
  public HttpResponse sendSMSCode(String mobile, String template) { return call("javaSms", "sendCode", new JSONObject().put("mobile", mobile).put("template", template == null ? "" : template)); }
  /** Consumes the mobile's current code when it matches (`verifySmsCode`): `{"msg":"ok"}`, else 207. */
  public HttpResponse verifySMSCode(String mobile, String smsCode) { return call("javaSms", "verify", new JSONObject().put("mobile", mobile).put("code", smsCode)); }

  /** The host's time: `{"timestamp": seconds, "datetime": "yyyy-MM-dd HH:mm:ss"}`, as `GET /1/timestamp`. */
  public HttpResponse getDBTime() { return call("host", "timestamp"); }
}
