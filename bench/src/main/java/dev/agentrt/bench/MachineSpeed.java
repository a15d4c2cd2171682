package dev.agentrt.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import tools.jackson.databind.json.JsonMapper;

/**
 * How fast this machine is just now: the CPU time one thread takes for a fixed piece of work of the
 * kind a step is made of (objects built, JSON written and read back, bytes hashed). The same build
 * has measured 92 and 144 steps per second, and 15 and 23 ms of CPU per step, an hour apart on
 * these shared cores; a CPU time per step means something next to another run's only when this
 * figure was alike in both. Each scenario records it, measured just before it runs.
 */
final class MachineSpeed {

  /** Rounds before the measured ones, for the JIT compiler. */
  private static final int UNMEASURED_ROUNDS = 3;

  private static final int MEASURED_ROUNDS = 5;

  private static final int RECORDS = 20_000;

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * The fixed work's CPU time: the median of its measured rounds, and what the work computed (the
   * same every time: it is the same work).
   */
  record Calibration(double cpuMillis, String digest) {}

  private MachineSpeed() {}

  static Calibration measure() {
    String digest = null;
    List<Double> millis = new ArrayList<>();
    for (int round = 0; round < UNMEASURED_ROUNDS + MEASURED_ROUNDS; round++) {
      long started = THREADS.getCurrentThreadCpuTime();
      digest = fixedWork();
      long cpuNanos = THREADS.getCurrentThreadCpuTime() - started;
      if (round >= UNMEASURED_ROUNDS) {
        millis.add(cpuNanos / 1e6);
      }
    }
    return new Calibration(Stats.median(millis), digest);
  }

  /** Records from a fixed seed, written as JSON, read back, and hashed: the SHA-256 of it all. */
  static String fixedWork() {
    SplittableRandom random = new SplittableRandom(20);
    List<Map<String, Object>> records = new ArrayList<>(RECORDS);
    for (int i = 0; i < RECORDS; i++) {
      Map<String, Object> record = new TreeMap<>();
      record.put("id", "record-" + i);
      record.put("seq", random.nextLong());
      record.put("text", Long.toString(random.nextLong(), 36).repeat(4));
      records.add(record);
    }
    byte[] written = JSON.writeValueAsBytes(records);
    byte[] readBack = JSON.writeValueAsBytes(JSON.readTree(written));
    try {
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      sha256.update(written);
      return HexFormat.of().formatHex(sha256.digest(readBack));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
