package dev.agentrt.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * {@code --profile}: a flight recording of every JVM of the stack (the services' started and
 * stopped with {@code jcmd}, this one's in-process), and where their execution samples taken within
 * given windows fall, by layer: the library of the first frame from the leaf that is not the JDK's
 * (a {@code HashMap} lookup inside the MongoDB driver is the driver's). Samples leave out what a
 * JVM does outside Java code (GC, the compilers), so the shares are of the Java work; and the
 * recorder itself costs CPU, so a profiled run's times are not the figures of a plain one.
 */
final class Profile {

  /** Layers by package prefix, the first that matches a frame wins. */
  private static final Map<String, List<String>> LAYERS = layers();

  private static Map<String, List<String>> layers() {
    Map<String, List<String>> layers = new LinkedHashMap<>();
    layers.put(
        "MongoDB server (bench JVM)",
        List.of("de.bwaldvogel.", "io.netty.", "org.h2.", "dev.agentrt.localstack.mongo."));
    layers.put("the bench's driver and fake model", List.of("dev.agentrt.bench."));
    layers.put(
        "Kafka broker (bench JVM)",
        List.of(
            "kafka.",
            "org.apache.kafka.server.",
            "org.apache.kafka.storage.",
            "org.apache.kafka.raft.",
            "org.apache.kafka.coordinator.",
            "org.apache.kafka.metadata.",
            "org.apache.kafka.image.",
            "org.apache.kafka.controller.",
            "org.apache.kafka.network.",
            "com.yammer."));
    layers.put("Kafka client", List.of("org.apache.kafka."));
    layers.put(
        "binder (spring-kafka, Cloud Stream, Integration)",
        List.of(
            "org.springframework.kafka.",
            "org.springframework.cloud.",
            "org.springframework.integration.",
            "org.springframework.messaging."));
    layers.put("MongoDB driver", List.of("com.mongodb."));
    layers.put("BSON", List.of("org.bson."));
    layers.put("Spring Data", List.of("org.springframework.data."));
    layers.put(
        "model client (Spring AI, openai-java, OkHttp)",
        List.of("org.springframework.ai.", "com.openai.", "okhttp3.", "okio.", "kotlin."));
    layers.put("Jackson", List.of("com.fasterxml.jackson.", "tools.jackson."));
    layers.put("JSON Schema validator", List.of("com.networknt."));
    layers.put("Micrometer and OpenTelemetry", List.of("io.micrometer.", "io.opentelemetry."));
    layers.put(
        "web (Tomcat, Spring Web)",
        List.of(
            "org.apache.catalina.",
            "org.apache.coyote.",
            "org.apache.tomcat.",
            "org.springframework.web.",
            "jakarta.servlet."));
    layers.put("logging", List.of("ch.qos.logback.", "org.slf4j."));
    layers.put("CloudEvents", List.of("io.cloudevents."));
    layers.put("ours (dev.agentrt)", List.of("dev.agentrt."));
    layers.put("the rest of Spring", List.of("org.springframework."));
    return layers;
  }

  private static final String JDK_ONLY = "the JDK alone";
  private static final String OTHER = "other libraries";
  private static final String NAME = "bench-profile";

  private final Map<String, Long> services;
  private final Path dir;
  private final Recording own;

  /** Recordings running in {@code services} (name → pid) and in this JVM ({@code own}). */
  Profile(Map<String, Long> services, Path dir, Recording own) {
    this.services = services;
    this.dir = dir;
    this.own = own;
  }

  /**
   * Starts recording in every service ({@code services}: name → pid) and in this JVM; the
   * recordings go to {@code dir} when {@link #stop} is called.
   */
  static Profile start(Map<String, Long> services, Path dir) {
    try {
      Files.createDirectories(dir);
      services.values().forEach(pid -> jcmd(pid, "JFR.start", "name=" + NAME, "settings=profile"));
      Recording own = new Recording(Configuration.getConfiguration("profile"));
      own.start();
      return new Profile(services, dir, own);
    } catch (IOException | ParseException e) {
      throw new IllegalStateException("cannot start the flight recordings: " + e.getMessage(), e);
    }
  }

  /**
   * Stops every recording; the file of each process, by name ({@code ownName} for this JVM). A
   * service whose recording cannot be stopped is left out, saying why; this JVM's recording is
   * closed whatever happens.
   */
  Map<String, Path> stop(String ownName, Consumer<String> say) {
    Map<String, Path> files = new LinkedHashMap<>();
    try {
      services.forEach(
          (name, pid) -> {
            Path file = dir.resolve(name + ".jfr");
            try {
              jcmd(pid, "JFR.stop", "name=" + NAME, "filename=" + file.toAbsolutePath());
              files.put(name, file);
            } catch (RuntimeException e) {
              say.accept("  profile: " + name + " left out: " + e.getMessage());
            }
          });
      Path file = dir.resolve("bench.jfr");
      own.dump(file);
      files.put(ownName, file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      own.close();
    }
    return files;
  }

  private static void jcmd(long pid, String... command) {
    Path jcmd =
        Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jcmd");
    List<String> args = new ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
    args.addAll(List.of(command));
    try {
      Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes());
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", args) + " failed: " + output);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * The execution samples of each recording taken within one of {@code windows} ({@code [from,
   * to]}), counted by {@link #layer}: process → layer → samples.
   */
  static Map<String, Map<String, Integer>> samplesByLayer(
      Map<String, Path> recordings, List<Instant[]> windows) {
    Map<String, Map<String, Integer>> byProcess = new LinkedHashMap<>();
    recordings.forEach(
        (process, file) -> {
          Map<String, Integer> counts = new TreeMap<>();
          try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
              RecordedEvent event = recording.readEvent();
              if (event.getEventType().getName().equals("jdk.ExecutionSample")
                  && within(event.getStartTime(), windows)
                  && event.getStackTrace() != null) {
                List<String> classes = new ArrayList<>();
                for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                  classes.add(frame.getMethod().getType().getName());
                }
                counts.merge(layer(classes), 1, Integer::sum);
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
          }
          byProcess.put(process, counts);
        });
    return byProcess;
  }

  /**
   * What {@link #samplesByLayer} found, to print: each process's share of all samples and its
   * largest layers, then every layer's share of all processes' samples.
   */
  static List<String> table(Map<String, Map<String, Integer>> samples) {
    Map<String, Integer> all = new TreeMap<>();
    samples
        .values()
        .forEach(counts -> counts.forEach((layer, n) -> all.merge(layer, n, Integer::sum)));
    int total = sum(all);
    List<String> lines = new ArrayList<>();
    lines.add("execution samples in the measured windows, %d in all, by process:".formatted(total));
    samples.forEach(
        (process, counts) ->
            lines.add(
                "  %s %s: %s"
                    .formatted(
                        percent(sum(counts), total), process, largest(counts, sum(counts), 4))));
    lines.add("by library, all processes:");
    all.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(e -> lines.add("  %s %s".formatted(percent(e.getValue(), total), e.getKey())));
    return lines;
  }

  private static int sum(Map<String, Integer> counts) {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  private static String largest(Map<String, Integer> counts, int total, int limit) {
    return counts.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .limit(limit)
        .map(e -> percent(e.getValue(), total) + " " + e.getKey())
        .collect(Collectors.joining(", "));
  }

  private static String percent(int n, int total) {
    return total == 0 ? "0 %" : String.format(Locale.ROOT, "%4.1f %%", 100.0 * n / total);
  }

  private static boolean within(Instant time, List<Instant[]> windows) {
    return windows.stream().anyMatch(w -> !time.isBefore(w[0]) && !time.isAfter(w[1]));
  }

  /** The layer of a stack given leaf first, by the first frame that is not the JDK's. */
  static String layer(List<String> classesLeafFirst) {
    for (String type : classesLeafFirst) {
      if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.")) {
        continue;
      }
      for (Map.Entry<String, List<String>> layer : LAYERS.entrySet()) {
        if (layer.getValue().stream().anyMatch(type::startsWith)) {
          return layer.getKey();
        }
      }
      return OTHER;
    }
    return JDK_ONLY;
  }
}
