package svcbase.worker;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.LinkedBlockingQueue;
import org.json.JSONArray;
import org.json.JSONObject;
import svcbase.cloud.Channel;

/** One running call of a function: its frames to the host, and the host's answers to its module calls. */
final class Invocation implements Channel {
  private static final int MAX_LOG_CHARS = 8192;

  private final long id;
  private final Frames frames;
  private final LinkedBlockingQueue<JSONObject> answers = new LinkedBlockingQueue<>();
  private long nextCall;
  private boolean sent;

  Invocation(long id, Frames frames) {
    this.id = id;
    this.frames = frames;
  }

  /** An answer of the host to one of this invocation's calls (from the reader thread). */
  void answer(JSONObject frame) {
    answers.add(frame);
  }

  @Override
  public synchronized JSONObject call(String module, String method, JSONArray args) {
    long call = ++nextCall;
    frames.write(new JSONObject().put("t", "call").put("id", id).put("call", call).put("module", module).put("method", method).put("args", args));
    while (true) {
      JSONObject answer;
      try {
        answer = answers.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new JSONObject().put("ok", false).put("code", 11033).put("error", "interrupted").put("status", 424);
      }
      if (answer.optLong("call") == call) return answer;
    }
  }

  @Override
  public void log(String level, String text) {
    String line = text.length() > MAX_LOG_CHARS ? text.substring(0, MAX_LOG_CHARS) : text;
    frames.write(new JSONObject().put("t", "log").put("id", id).put("level", level).put("text", line));
  }

  @Override
  public synchronized void send(byte[] body, boolean text, int status, String statusMessage, JSONObject headers) {
    if (sent) return;
    sent = true;
    JSONObject frame = new JSONObject().put("t", "send").put("id", id).put("status", status).put("text", text).put("headers", headers);
    if (statusMessage != null) frame.put("statusMessage", statusMessage);
    frame.put("body", text ? new String(body, StandardCharsets.UTF_8) : Base64.getEncoder().encodeToString(body));
    frames.write(frame);
  }
}
