package svcbase.cloud;

import org.json.JSONArray;
import org.json.JSONObject;

/** Builds the `data` of `oData.update`: plain values and the `__op` operations, each returning `data` for chaining. */
public final class BmobUpdater {
  private BmobUpdater() {}

  private static JSONArray list(Object[] values) {
    JSONArray out = new JSONArray();
    for (Object v : values) out.put(v instanceof BmobPointer ? ((BmobPointer) v).toJSON() : v);
    return out;
  }

  private static JSONObject op(JSONObject data, String key, JSONObject operation) {
    JSONObject target = data == null ? new JSONObject() : data;
    return target.put(key, operation);
  }

  public static JSONObject add(JSONObject data, String key, Object value) {
    Object plain = value instanceof BmobPointer ? ((BmobPointer) value).toJSON() : value instanceof BmobDate ? ((BmobDate) value).toJSON() : value instanceof BmobGeoPoint ? ((BmobGeoPoint) value).toJSON() : value instanceof Bmobfile ? ((Bmobfile) value).toJSON() : value;
    return (data == null ? new JSONObject() : data).put(key, plain);
  }

  public static JSONObject increment(JSONObject data, String key, Number amount) { return op(data, key, new JSONObject().put("__op", "Increment").put("amount", amount)); }
  public static JSONObject arrayAdd(JSONObject data, String key, Object value) { return op(data, key, new JSONObject().put("__op", "Add").put("objects", list(new Object[] {value}))); }
  public static JSONObject arrayAddAll(JSONObject data, String key, Object[] values) { return op(data, key, new JSONObject().put("__op", "Add").put("objects", list(values))); }
  public static JSONObject arrayAddUnique(JSONObject data, String key, Object value) { return op(data, key, new JSONObject().put("__op", "AddUnique").put("objects", list(new Object[] {value}))); }
  public static JSONObject arrayAddAllUnique(JSONObject data, String key, Object[] values) { return op(data, key, new JSONObject().put("__op", "AddUnique").put("objects", list(values))); }
  public static JSONObject arrayRemoveAll(JSONObject data, String key, Object[] values) { return op(data, key, new JSONObject().put("__op", "Remove").put("objects", list(values))); }
  public static JSONObject addRelations(JSONObject data, String key, BmobPointer[] pointers) { return op(data, key, new JSONObject().put("__op", "AddRelation").put("objects", list(pointers))); }
  public static JSONObject removeRelations(JSONObject data, String key, BmobPointer[] pointers) { return op(data, key, new JSONObject().put("__op", "RemoveRelation").put("objects", list(pointers))); }
}
