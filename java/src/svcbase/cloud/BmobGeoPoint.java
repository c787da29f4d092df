package svcbase.cloud;

import org.json.JSONObject;

/** A GeoPoint value; the constructor takes the longitude first, as the hosted class does. */
public final class BmobGeoPoint {
  public final double longitude;
  public final double latitude;

  public BmobGeoPoint(double longitude, double latitude) {
    this.longitude = longitude;
    this.latitude = latitude;
  }

  public JSONObject toJSON() {
    return new JSONObject().put("__type", "GeoPoint").put("latitude", latitude).put("longitude", longitude);
  }

  @Override
  public String toString() {
    return toJSON().toString();
  }
}
