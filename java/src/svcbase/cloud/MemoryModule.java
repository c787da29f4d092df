package svcbase.cloud;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * `modules.oMemory`: 64 KB shared by every Java function of the application on this server, kept
 * while its worker runs (it may be reset at any time: a restarted worker starts empty). Use the byte
 * API or the map API, never both: the first one used holds until `clean()`.
 */
public final class MemoryModule {
  public final int MemorySize = 64 * 1024;
  private final byte[] bytes = new byte[MemorySize];
  private final Map<String, String> map = new HashMap<>();
  private int mapBytes;
  /** 0 unused, 1 bytes, 2 map. */
  private int mode;

  private void use(int wanted) {
    if (mode != 0 && mode != wanted) throw new IllegalStateException("oMemory: the byte API and the map API cannot be mixed (call clean() first)");
    mode = wanted;
  }

  private void range(int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > MemorySize) throw new IndexOutOfBoundsException("oMemory holds " + MemorySize + " bytes");
  }

  public synchronized void write(byte[] buff, int buffOffset, int memoryOffset, int length) {
    use(1);
    range(memoryOffset, length);
    java.lang.System.arraycopy(buff, buffOffset, bytes, memoryOffset, length);
  }

  public synchronized void read(byte[] buff, int memoryOffset, int buffOffset, int length) {
    use(1);
    range(memoryOffset, length);
    java.lang.System.arraycopy(bytes, memoryOffset, buff, buffOffset, length);
  }

  public synchronized byte[] read(int memoryOffset, int length) {
    byte[] out = new byte[Math.max(0, length)];
    read(out, memoryOffset, 0, length);
    return out;
  }

  public synchronized void writeByte(int index, byte b) {
    use(1);
    range(index, 1);
    bytes[index] = b;
  }

  public synchronized byte readByte(int index) {
    use(1);
    range(index, 1);
    return bytes[index];
  }

  private static int size(String key, String value) {
    return key.getBytes(StandardCharsets.UTF_8).length + (value == null ? 0 : value.getBytes(StandardCharsets.UTF_8).length);
  }

  /** Stores a pair; false (nothing stored) when the map would pass MemorySize bytes of keys and values. */
  public synchronized boolean putMap(String key, String value) {
    use(2);
    if (key == null) return false;
    int next = mapBytes - (map.containsKey(key) ? size(key, map.get(key)) : 0) + size(key, value);
    if (next > MemorySize) return false;
    if (value == null) map.remove(key);
    else map.put(key, value);
    mapBytes = value == null ? next - size(key, null) : next;
    return true;
  }

  public synchronized boolean putMap(Map<String, String> entries) {
    for (Map.Entry<String, String> e : entries.entrySet()) if (!putMap(e.getKey(), e.getValue())) return false;
    return true;
  }

  public synchronized String getMap(String key) {
    use(2);
    return map.get(key);
  }

  /** Replaces the whole map. */
  public synchronized boolean writeMap(Map<String, String> entries) {
    use(2);
    int total = 0;
    for (Map.Entry<String, String> e : entries.entrySet()) total += size(e.getKey(), e.getValue());
    if (total > MemorySize) return false;
    map.clear();
    map.putAll(entries);
    mapBytes = total;
    return true;
  }

  public synchronized Map<String, String> readMap() {
    use(2);
    return new HashMap<>(map);
  }

  /** Empties the memory and frees the choice of API. */
  public synchronized void clean() {
    java.util.Arrays.fill(bytes, (byte) 0);
    map.clear();
    mapBytes = 0;
    mode = 0;
  }
}
