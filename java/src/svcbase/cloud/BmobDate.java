package svcbase.cloud;

import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.TimeZone;
import org.json.JSONObject;

/** A Date value `{"__type":"Date","iso":"yyyy-MM-dd HH:mm:ss"}` from that text or from epoch milliseconds. */
public final class BmobDate {
  public final String iso;

  public BmobDate(String iso) {
    this.iso = iso;
  }

  public BmobDate(long epochMs) {
    SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss");
    format.setTimeZone(TimeZone.getTimeZone("UTC"));
    this.iso = format.format(new Date(epochMs));
  }

  public JSONObject toJSON() {
    return new JSONObject().put("__type", "Date").put("iso", iso);
  }

  @Override
  public String toString() {
    return toJSON().toString();
  }
}
