package org.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict JSON reader (RFC 8259): objects become JSONObject, arrays JSONArray, null JSONObject.NULL. */
final class JSONTokener {
  private final String text;
  private int at;
  private int depth;

  JSONTokener(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    JSONTokener reader = new JSONTokener(text);
    Object value = reader.value();
    reader.space();
    if (reader.at != text.length()) throw reader.error("unexpected text after the value");
    return value;
  }

  private JSONException error(String what) {
    return new JSONException(what + " at character " + at);
  }

  private void space() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      at++;
    }
  }

  private Object value() {
    space();
    if (at >= text.length()) throw error("unexpected end of text");
    char c = text.charAt(at);
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return literal("true", Boolean.TRUE);
      case 'f': return literal("false", Boolean.FALSE);
      case 'n': return literal("null", JSONObject.NULL);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        throw error("unexpected character '" + c + "'");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) throw error("expected " + word);
    at += word.length();
    return value;
  }

  private Object number() {
    int start = at;
    if (text.charAt(at) == '-') at++;
    boolean decimal = false;
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c >= '0' && c <= '9') at++;
      else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        decimal = true;
        at++;
      } else break;
    }
    String digits = text.substring(start, at);
    try {
      if (!decimal) {
        long n = Long.parseLong(digits);
        if (n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE) return (int) n;
        return n;
      }
      return Double.parseDouble(digits);
    } catch (NumberFormatException e) {
      if (!decimal) return Double.parseDouble(digits);
      throw error("invalid number " + digits);
    }
  }

  private String string() {
    at++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) throw error("unterminated string");
      char c = text.charAt(at++);
      if (c == '"') return out.toString();
      if (c < 0x20) throw error("control character in string");
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (at >= text.length()) throw error("unterminated escape");
      char e = text.charAt(at++);
      switch (e) {
        case '"': out.append('"'); break;
        case '\\': out.append('\\'); break;
        case '/': out.append('/'); break;
        case 'b': out.append('\b'); break;
        case 'f': out.append('\f'); break;
        case 'n': out.append('\n'); break;
        case 'r': out.append('\r'); break;
        case 't': out.append('\t'); break;
        case 'u':
          if (at + 4 > text.length()) throw error("short unicode escape");
          try {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          } catch (NumberFormatException x) {
            throw error("invalid unicode escape");
          }
          at += 4;
          break;
        default: throw error("invalid escape \\" + e);
      }
    }
  }

  private JSONObject object() {
    if (++depth > 512) throw error("nested too deeply");
    at++;
    Map<String, Object> map = new LinkedHashMap<>();
    space();
    if (at < text.length() && text.charAt(at) == '}') {
      at++;
      depth--;
      return new JSONObject(map);
    }
    while (true) {
      space();
      if (at >= text.length() || text.charAt(at) != '"') throw error("expected a key");
      String key = string();
      space();
      if (at >= text.length() || text.charAt(at) != ':') throw error("expected ':'");
      at++;
      map.put(key, value());
      space();
      if (at >= text.length()) throw error("unterminated object");
      char c = text.charAt(at++);
      if (c == '}') break;
      if (c != ',') throw error("expected ',' or '}'");
    }
    depth--;
    return new JSONObject(map);
  }

  private JSONArray array() {
    if (++depth > 512) throw error("nested too deeply");
    at++;
    List<Object> list = new ArrayList<>();
    space();
    if (at < text.length() && text.charAt(at) == ']') {
      at++;
      depth--;
      return new JSONArray(list);
    }
    while (true) {
      list.add(value());
      space();
      if (at >= text.length()) throw error("unterminated array");
      char c = text.charAt(at++);
      if (c == ']') break;
      if (c != ',') throw error("expected ',' or ']'");
    }
    depth--;
    return new JSONArray(list);
  }

  /** JSON text of a value: a string quoted, numbers and booleans as they are, JSONObject/JSONArray/Map/Collection as JSON. */
  static void write(StringBuilder out, Object value) {
    if (value == null || value == JSONObject.NULL) out.append("null");
    else if (value instanceof String || value instanceof Character) quote(out, value.toString());
    else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) throw new JSONException("JSON has no NaN or Infinity");
      if (d == Math.rint(d) && Math.abs(d) < 1e15) out.append((long) d);
      else out.append(d);
    } else if (value instanceof Number || value instanceof Boolean) out.append(value);
    else if (value instanceof JSONObject) ((JSONObject) value).write(out);
    else if (value instanceof JSONArray) ((JSONArray) value).write(out);
    else if (value instanceof Map) new JSONObject((Map<?, ?>) value).write(out);
    else if (value instanceof java.util.Collection) new JSONArray((java.util.Collection<?>) value).write(out);
    else if (value.getClass().isArray()) JSONArray.ofArray(value).write(out);
    else quote(out, value.toString());
  }

  static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"': out.append("\\\""); break;
        case '\\': out.append("\\\\"); break;
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        case '\b': out.append("\\b"); break;
        case '\f': out.append("\\f"); break;
        default:
          if (c < 0x20 || c == '\u2028' || c == '\u2029') out.append(String.format("\\u%04x", (int) c));
          else out.append(c);
      }
    }
    out.append('"');
  }
}
