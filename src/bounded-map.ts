/**
 * A Map of at most `limit` entries: setting a new key when it is full drops the oldest entry (a Map
 * keeps insertion order, so that is its first key). What the service keeps in memory to answer
 * faster (compiled queries, prepared statements, converted times, counts, users, file types) is
 * kept in one of these, so no cache grows without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.limit && !this.has(key)) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}
