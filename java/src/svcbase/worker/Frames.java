package svcbase.worker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.json.JSONObject;

/** The framed protocol with the Node host: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. */
final class Frames {
  private static final int MAX_FRAME = 64 * 1024 * 1024;
  private final DataInputStream in;
  private final DataOutputStream out;

  Frames(InputStream in, OutputStream out) {
    this.in = new DataInputStream(in);
    this.out = new DataOutputStream(out);
  }

  /** The next frame, or null at the end of input (the host closed the pipe). */
  JSONObject read() throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    if (length < 0 || length > MAX_FRAME) throw new IOException("frame of " + length + " bytes");
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return new JSONObject(new String(bytes, StandardCharsets.UTF_8));
  }

  synchronized void write(JSONObject frame) {
    byte[] bytes = frame.toString().getBytes(StandardCharsets.UTF_8);
    try {
      out.writeInt(bytes.length);
      out.write(bytes);
      out.flush();
    } catch (IOException e) {
      // The host is gone: the worker ends when its input closes.
    }
  }
}
