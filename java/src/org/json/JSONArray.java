package org.json;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/** A JSON array with the everyday methods of org.json's class of the same name. */
public class JSONArray implements Iterable<Object> {
  private final List<Object> list;

  public JSONArray() {
    this.list = new ArrayList<>();
  }

  public JSONArray(String text) {
    Object value = JSONTokener.parse(text);
    if (!(value instanceof JSONArray)) throw new JSONException("JSON text is not an array");
    this.list = ((JSONArray) value).list;
  }

  public JSONArray(Collection<?> from) {
    this.list = new ArrayList<>();
    for (Object v : from) list.add(JSONObject.wrap(v));
  }

  JSONArray(List<Object> list) {
    this.list = list;
  }

  static JSONArray ofArray(Object array) {
    JSONArray out = new JSONArray();
    int n = Array.getLength(array);
    for (int i = 0; i < n; i++) out.put(Array.get(array, i));
    return out;
  }

  public JSONArray put(Object value) {
    list.add(JSONObject.wrap(value));
    return this;
  }

  public JSONArray put(int value) { return put((Object) value); }
  public JSONArray put(long value) { return put((Object) value); }
  public JSONArray put(double value) { return put((Object) value); }
  public JSONArray put(boolean value) { return put((Object) value); }

  public JSONArray put(int index, Object value) {
    if (index < 0) throw new JSONException("JSONArray[" + index + "] not found.");
    while (list.size() <= index) list.add(JSONObject.NULL);
    list.set(index, JSONObject.wrap(value));
    return this;
  }

  public int length() {
    return list.size();
  }

  public Object opt(int index) {
    return index >= 0 && index < list.size() ? list.get(index) : null;
  }

  public Object get(int index) {
    Object v = opt(index);
    if (v == null) throw new JSONException("JSONArray[" + index + "] not found.");
    return v;
  }

  public Object remove(int index) {
    return index >= 0 && index < list.size() ? list.remove(index) : null;
  }

  public String getString(int index) {
    Object v = get(index);
    if (!(v instanceof String)) throw new JSONException("JSONArray[" + index + "] is not a string.");
    return (String) v;
  }

  public String optString(int index) {
    Object v = opt(index);
    return v == null || v == JSONObject.NULL ? "" : v.toString();
  }

  public int getInt(int index) { return number(index).intValue(); }
  public long getLong(int index) { return number(index).longValue(); }
  public double getDouble(int index) { return number(index).doubleValue(); }

  public boolean getBoolean(int index) {
    Object v = get(index);
    if (!(v instanceof Boolean)) throw new JSONException("JSONArray[" + index + "] is not a boolean.");
    return (Boolean) v;
  }

  public JSONObject getJSONObject(int index) {
    Object v = get(index);
    if (!(v instanceof JSONObject)) throw new JSONException("JSONArray[" + index + "] is not a JSONObject.");
    return (JSONObject) v;
  }

  public JSONObject optJSONObject(int index) {
    Object v = opt(index);
    return v instanceof JSONObject ? (JSONObject) v : null;
  }

  public JSONArray getJSONArray(int index) {
    Object v = get(index);
    if (!(v instanceof JSONArray)) throw new JSONException("JSONArray[" + index + "] is not a JSONArray.");
    return (JSONArray) v;
  }

  private Number number(int index) {
    Object v = get(index);
    if (v instanceof Number) return (Number) v;
    throw new JSONException("JSONArray[" + index + "] is not a number.");
  }

  public List<Object> toList() {
    List<Object> out = new ArrayList<>();
    for (Object v : list) out.add(v == JSONObject.NULL ? null : v instanceof JSONObject ? ((JSONObject) v).toMap() : v instanceof JSONArray ? ((JSONArray) v).toList() : v);
    return out;
  }

  @Override
  public Iterator<Object> iterator() {
    return list.iterator();
  }

  void write(StringBuilder out) {
    out.append('[');
    for (int i = 0; i < list.size(); i++) {
      if (i > 0) out.append(',');
      JSONTokener.write(out, list.get(i));
    }
    out.append(']');
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    write(out);
    return out.toString();
  }
}
