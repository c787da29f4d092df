package svcbase.cloud;

import org.json.JSONArray;
import org.json.JSONObject;

/** How a function's Request, Response and Modules reach the Node host of one invocation (the worker implements it). */
public interface Channel {
  /** Runs a host module method as the invocation's caller; blocks until the host answers `{ok, value}` or `{ok:false, code, error, status}`. */
  JSONObject call(String module, String method, JSONArray args);

  /** One line of the function's log (`debug`, `warn` or `error`). */
  void log(String level, String text);

  /** The function's reply; only the first one counts. */
  void send(byte[] body, boolean text, int status, String statusMessage, JSONObject headers);
}
