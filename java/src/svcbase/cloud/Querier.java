package svcbase.cloud;

import org.json.JSONArray;
import org.json.JSONObject;

/** A find for `oData.find`, built by chaining: `new Querier("Post").addWhereEqualTo("author", "ann").order("-createdAt").limit(10)`. */
public final class Querier {
  private final String table;
  private JSONObject where = new JSONObject();
  private Integer limit;
  private Integer skip;
  private String order;
  private String keys;
  private String include;
  private boolean count;

  public Querier(String table) {
    this.table = table;
  }

  public Querier limit(int n) { this.limit = n; return this; }
  public Querier skip(int n) { this.skip = n; return this; }
  public Querier order(String order) { this.order = order; return this; }
  public Querier keys(String keys) { this.keys = keys; return this; }
  public Querier include(String include) { this.include = include; return this; }
  /** Also counts every match (`count=1`); the reply has `count` beside `results`. */
  public Querier count(int n) { this.count = n > 0; return this; }
  /** Replaces the whole where object. */
  public Querier where(JSONObject where) { this.where = where == null ? new JSONObject() : where; return this; }
  /** Sets one key of the where object (a value, or an operator object). */
  public Querier addWhere(String key, Object condition) { where.put(key, condition); return this; }

  private Querier op(String key, String op, Object value) {
    JSONObject current = where.optJSONObject(key);
    if (current == null) {
      current = new JSONObject();
      where.put(key, current);
    }
    current.put(op, value);
    return this;
  }

  public Querier and(JSONArray conditions) { where.put("$and", conditions); return this; }
  public Querier or(JSONArray conditions) { where.put("$or", conditions); return this; }
  public Querier addWhereEqualTo(String key, Object value) { where.put(key, value); return this; }
  public Querier addWhereNotEqualTo(String key, Object value) { return op(key, "$ne", value); }
  public Querier addWhereGreaterThan(String key, Object value) { return op(key, "$gt", value); }
  public Querier addWhereGreaterThanOrEqualTo(String key, Object value) { return op(key, "$gte", value); }
  public Querier addWhereLessThan(String key, Object value) { return op(key, "$lt", value); }
  public Querier addWhereLessThanOrEqualTo(String key, Object value) { return op(key, "$lte", value); }
  public Querier addWhereExists(String key, boolean exists) { return op(key, "$exists", exists); }
  public Querier addWhereExists(String key) { return op(key, "$exists", true); }
  public Querier addWhereNotExists(String key) { return op(key, "$exists", false); }
  public Querier addWhereContainedIn(String key, JSONArray values) { return op(key, "$in", values); }
  public Querier addWhereContainedInArray(String key, Object[] values) { return op(key, "$in", new JSONArray(java.util.Arrays.asList(values))); }
  public Querier addWhereNotContainedIn(String key, JSONArray values) { return op(key, "$nin", values); }
  public Querier addWhereNotContainedInArray(String key, Object[] values) { return op(key, "$nin", new JSONArray(java.util.Arrays.asList(values))); }
  public Querier addWhereContainsAll(String key, JSONArray values) { return op(key, "$all", values); }
  public Querier addWhereContainsAllInArray(String key, Object[] values) { return op(key, "$all", new JSONArray(java.util.Arrays.asList(values))); }

  /** Values holding `keyword` (a literal, not a pattern). */
  public Querier addWhereStrContains(String key, String keyword) { return op(key, "$regex", java.util.regex.Pattern.quote(keyword)); }

  public Querier addWhereRelatedTo(String table, String toObjectId, String toKey) {
    where.put("$relatedTo", new JSONObject().put("object", new BmobPointer(table, toObjectId).toJSON()).put("key", toKey));
    return this;
  }

  public Querier addWhereInQuery(String key, Querier inner) { return op(key, "$inQuery", inner.inner()); }
  public Querier addWhereNotInQuery(String key, Querier inner) { return op(key, "$notInQuery", inner.inner()); }
  public Querier addWhereMatchesQuery(String key, Querier inner, String innerKey) { return op(key, "$select", new JSONObject().put("query", inner.inner()).put("key", innerKey)); }
  public Querier addWhereDoesNotMatchQuery(String key, Querier inner, String innerKey) { return op(key, "$dontSelect", new JSONObject().put("query", inner.inner()).put("key", innerKey)); }

  private JSONObject inner() {
    return new JSONObject().put("className", table).put("where", where);
  }

  /** The parameters of the host's `oData.find`. */
  JSONObject toParams() {
    JSONObject params = new JSONObject().put("table", table).put("where", where);
    if (limit != null) params.put("limit", limit);
    if (skip != null) params.put("skip", skip);
    if (order != null) params.put("order", order);
    if (keys != null) params.put("keys", keys);
    if (include != null) params.put("include", include);
    if (count) params.put("count", 1);
    return params;
  }
}
