package svcbase.cloud;

import org.json.JSONObject;

/** A Pointer value `{"__type":"Pointer","className","objectId"}`. */
public final class BmobPointer {
  public final String className;
  public final String objectId;

  public BmobPointer(String className, String objectId) {
    this.className = className;
    this.objectId = objectId;
  }

  public JSONObject toJSON() {
    return new JSONObject().put("__type", "Pointer").put("className", className).put("objectId", objectId);
  }

  @Override
  public String toString() {
    return toJSON().toString();
  }
}
