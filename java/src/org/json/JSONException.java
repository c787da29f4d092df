package org.json;

/** Thrown for malformed JSON text and for a missing or mistyped value. */
public class JSONException extends RuntimeException {
  public JSONException(String message) {
    super(message);
  }
}
