package svcbase.cloud;

import org.json.JSONObject;

/** A File value `{"__type":"File","filename","url"}`. */
public final class Bmobfile {
  public final String filename;
  public final String url;

  public Bmobfile(String filename, String url) {
    this.filename = filename;
    this.url = url;
  }

  public JSONObject toJSON() {
    return new JSONObject().put("__type", "File").put("filename", filename).put("url", url);
  }

  @Override
  public String toString() {
    return toJSON().toString();
  }
}
