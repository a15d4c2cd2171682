package dev.agentrt.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileTest {

  @Test
  void aSampleCountsForTheLibraryOfItsFirstFrameOutsideTheJdk() {
    assertThat(
            Profile.layer(
                List.of("java.util.HashMap", "com.mongodb.internal.Foo", "dev.agentrt.Bar")))
        .isEqualTo("MongoDB driver");
    assertThat(Profile.layer(List.of("org.apache.kafka.server.Foo", "kafka.Bar")))
        .isEqualTo("Kafka broker (bench JVM)");
    assertThat(Profile.layer(List.of("org.apache.kafka.clients.consumer.Foo")))
        .isEqualTo("Kafka client");
    assertThat(Profile.layer(List.of("org.springframework.data.mongodb.Foo")))
        .isEqualTo("Spring Data");
    assertThat(Profile.layer(List.of("org.springframework.core.Foo")))
        .isEqualTo("the rest of Spring");
    assertThat(Profile.layer(List.of("sun.nio.ch.Foo", "org.example.Bar")))
        .isEqualTo("other libraries");
    assertThat(Profile.layer(List.of("dev.agentrt.localstack.mongo.FieldIndex")))
        .isEqualTo("MongoDB server (bench JVM)");
    assertThat(Profile.layer(List.of("java.lang.Thread"))).isEqualTo("the JDK alone");
  }

  @Test
  void countsTheSamplesOfARecordingTakenInTheWindowsOnly(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("own.jfr");
    Instant from = Instant.now();
    Map<String, Integer> inWindow = Map.of();
    // A sampler may miss a short burst on a busy machine: burn until it has seen one, at most 20 s.
    for (int attempt = 0;
        attempt < 40 && !inWindow.containsKey("the bench's driver and fake model");
        attempt++) {
      try (Recording recording = new Recording()) {
        recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        recording.start();
        burn(Duration.ofMillis(500));
        recording.stop();
        recording.dump(file);
      }
      inWindow =
          Profile.samplesByLayer(
                  Map.of("test", file), List.<Instant[]>of(new Instant[] {from, Instant.now()}))
              .get("test");
    }

    assertThat(inWindow).containsKey("the bench's driver and fake model");
    Instant longAgo = from.minus(Duration.ofHours(1));
    assertThat(
            Profile.samplesByLayer(
                    Map.of("test", file),
                    List.<Instant[]>of(new Instant[] {longAgo, longAgo.plusSeconds(1)}))
                .get("test"))
        .isEmpty();
    assertThat(Profile.table(Map.of("test", inWindow)))
        .anySatisfy(line -> assertThat(line).startsWith("  100.0 % test: "));
  }

  @Test
  void aServiceWhoseRecordingCannotBeStoppedIsLeftOutAndTheOwnRecordingStillClosed(
      @TempDir Path dir) throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Recording own = new Recording();
    own.start();
    List<String> said = new ArrayList<>();

    Map<String, Path> files =
        new Profile(Map.of("gone", gone.pid()), dir, own).stop("bench JVM", said::add);

    assertThat(files).containsOnlyKeys("bench JVM");
    assertThat(files.get("bench JVM")).exists();
    assertThat(said).singleElement().asString().startsWith("  profile: gone left out: ");
    assertThat(own.getState()).isEqualTo(RecordingState.CLOSED);
  }

  private static long burn(Duration time) {
    long until = System.nanoTime() + time.toNanos();
    long x = 0;
    while (System.nanoTime() < until) {
      for (int i = 0; i < 10_000; i++) {
        x = x * 31 + i;
      }
    }
    return x;
  }
}
