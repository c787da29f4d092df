package org.json;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A JSON object with the everyday methods of org.json's class of the same name (the hosted service's
 * Java functions use it): put, get/opt of each type, has, remove, keys, length, toString.
 */
public class JSONObject {
  /** JSON's null (a value that is present and null, unlike a missing key). */
  public static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  private final Map<String, Object> map;

  public JSONObject() {
    this.map = new LinkedHashMap<>();
  }

  public JSONObject(String text) {
    Object value = JSONTokener.parse(text);
    if (!(value instanceof JSONObject)) throw new JSONException("JSON text is not an object");
    this.map = ((JSONObject) value).map;
  }

  public JSONObject(Map<?, ?> from) {
    this.map = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : from.entrySet()) map.put(String.valueOf(e.getKey()), wrap(e.getValue()));
  }

  static Object wrap(Object value) {
    if (value == null) return NULL;
    if (value instanceof Map && !(value instanceof JSONObject)) return new JSONObject((Map<?, ?>) value);
    if (value instanceof java.util.Collection) return new JSONArray((java.util.Collection<?>) value);
    if (value.getClass().isArray() && !(value instanceof byte[])) return JSONArray.ofArray(value);
    return value;
  }

  public JSONObject put(String key, Object value) {
    if (key == null) throw new JSONException("null key");
    if (value == null) map.remove(key);
    else map.put(key, wrap(value));
    return this;
  }

  public JSONObject put(String key, int value) { return put(key, (Object) value); }
  public JSONObject put(String key, long value) { return put(key, (Object) value); }
  public JSONObject put(String key, double value) { return put(key, (Object) value); }
  public JSONObject put(String key, boolean value) { return put(key, (Object) value); }

  public Object opt(String key) {
    return key == null ? null : map.get(key);
  }

  public boolean has(String key) {
    return map.containsKey(key);
  }

  public boolean isNull(String key) {
    Object v = opt(key);
    return v == null || v == NULL;
  }

  public Object remove(String key) {
    return map.remove(key);
  }

  public int length() {
    return map.size();
  }

  public Set<String> keySet() {
    return map.keySet();
  }

  public Iterator<String> keys() {
    return map.keySet().iterator();
  }

  public Object get(String key) {
    Object v = opt(key);
    if (v == null) throw new JSONException("JSONObject[\"" + key + "\"] not found.");
    return v;
  }

  public String getString(String key) {
    Object v = get(key);
    if (!(v instanceof String)) throw new JSONException("JSONObject[\"" + key + "\"] is not a string.");
    return (String) v;
  }

  public String optString(String key) {
    return optString(key, "");
  }

  public String optString(String key, String fallback) {
    Object v = opt(key);
    return v == null || v == NULL ? fallback : v.toString();
  }

  public int getInt(String key) {
    return number(key).intValue();
  }

  public long getLong(String key) {
    return number(key).longValue();
  }

  public double getDouble(String key) {
    return number(key).doubleValue();
  }

  public int optInt(String key) { return optInt(key, 0); }
  public int optInt(String key, int fallback) { Object v = opt(key); return v instanceof Number ? ((Number) v).intValue() : fallback; }
  public long optLong(String key) { return optLong(key, 0L); }
  public long optLong(String key, long fallback) { Object v = opt(key); return v instanceof Number ? ((Number) v).longValue() : fallback; }
  public double optDouble(String key) { return optDouble(key, Double.NaN); }
  public double optDouble(String key, double fallback) { Object v = opt(key); return v instanceof Number ? ((Number) v).doubleValue() : fallback; }

  public boolean getBoolean(String key) {
    Object v = get(key);
    if (!(v instanceof Boolean)) throw new JSONException("JSONObject[\"" + key + "\"] is not a boolean.");
    return (Boolean) v;
  }

  public boolean optBoolean(String key) { return optBoolean(key, false); }
  public boolean optBoolean(String key, boolean fallback) { Object v = opt(key); return v instanceof Boolean ? (Boolean) v : fallback; }

  public JSONObject getJSONObject(String key) {
    Object v = get(key);
    if (!(v instanceof JSONObject)) throw new JSONException("JSONObject[\"" + key + "\"] is not a JSONObject.");
    return (JSONObject) v;
  }

  public JSONObject optJSONObject(String key) {
    Object v = opt(key);
    return v instanceof JSONObject ? (JSONObject) v : null;
  }

  public JSONArray getJSONArray(String key) {
    Object v = get(key);
    if (!(v instanceof JSONArray)) throw new JSONException("JSONObject[\"" + key + "\"] is not a JSONArray.");
    return (JSONArray) v;
  }

  public JSONArray optJSONArray(String key) {
    Object v = opt(key);
    return v instanceof JSONArray ? (JSONArray) v : null;
  }

  private Number number(String key) {
    Object v = get(key);
    if (v instanceof Number) return (Number) v;
    if (v instanceof String) {
      try {
        return Double.parseDouble((String) v);
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    throw new JSONException("JSONObject[\"" + key + "\"] is not a number.");
  }

  public Map<String, Object> toMap() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : map.entrySet()) {
      Object v = e.getValue();
      out.put(e.getKey(), v == NULL ? null : v instanceof JSONObject ? ((JSONObject) v).toMap() : v instanceof JSONArray ? ((JSONArray) v).toList() : v);
    }
    return out;
  }

  void write(StringBuilder out) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, Object> e : map.entrySet()) {
      if (!first) out.append(',');
      first = false;
      JSONTokener.quote(out, e.getKey());
      out.append(':');
      JSONTokener.write(out, e.getValue());
    }
    out.append('}');
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    write(out);
    return out.toString();
  }

  /** JSON text of any value (`JSONObject.valueToString`). */
  public static String valueToString(Object value) {
    StringBuilder out = new StringBuilder();
    JSONTokener.write(out, value);
    return out.toString();
  }

  /** A Java string as a quoted JSON string. */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder();
    JSONTokener.quote(out, s == null ? "" : s);
    return out.toString();
  }
}
