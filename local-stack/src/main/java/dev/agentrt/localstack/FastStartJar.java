package dev.agentrt.localstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A service's executable jar, extracted as Spring Boot's {@code jarmode=tools} does ({@link
 * BootJarExtractor}) into {@code target/fast-start/} next to it, and run with a class-data-sharing
 * archive that the JVM writes on the first run and maps on later ones ({@code
 * -XX:+AutoCreateSharedArchive}, JDK 19+). One service alone starts in 1.8 s instead of 3.9 s on
 * this project's machines. A rebuilt jar is extracted again, and an archive older than the jars it
 * was written for is deleted before the JVM starts: the JVM neither maps nor rewrites it (JDK 25:
 * "timestamp has changed"), so after the first rebuild every start would go without one. The JVM
 * writes the archive in place when it exits: two processes of one service must not share an archive
 * file (the caller chooses it). Several services to run in one JVM are extracted together, into one
 * directory, and start from an AOT cache on JDK 25 and later ({@link #startUpCache}).
 */
final class FastStartJar {

  /**
   * The JDK's notes on classes it leaves out of a cache, on a cache it cannot use and on code stubs
   * it stored (every tag set with {@code aot} or {@code cds}, not only those tags alone).
   */
  private static final String QUIET_AOT = "-Xlog:aot*=off,cds*=off";

  private FastStartJar() {}

  /**
   * The JVM arguments that run {@code jar} from its extracted copy, extracting it if needed; just
   * {@code -jar jar} when it is not a Spring Boot jar.
   */
  static List<String> jvmArguments(Path jar, Path archive) {
    Path dir = jar.resolveSibling("fast-start");
    if (!isFresh(dir, List.of(jar)) && !BootJarExtractor.extract(List.of(jar), dir)) {
      return List.of("-jar", jar.toString());
    }
    Path extracted = applicationJar(dir, jar);
    List<String> arguments = new ArrayList<>(archiveArguments(archive, List.of(extracted)));
    arguments.addAll(List.of("-jar", extracted.toString()));
    return arguments;
  }

  /**
   * Several services' jars extracted together into {@code dir} if needed, to run on one class path
   * (for {@code ServicesHost}): their application jars, in order, whose {@code Class-Path} names
   * their libraries in {@code dir/lib}, where a library they share is one jar.
   *
   * @throws IllegalStateException if a jar is not a Spring Boot jar
   */
  static List<Path> extractedTogether(List<Path> jars, Path dir) {
    if (!isFresh(dir, jars) && !BootJarExtractor.extract(jars, dir)) {
      throw new IllegalStateException("cannot extract " + jars + ": not all Spring Boot jars");
    }
    return jars.stream().map(jar -> applicationJar(dir, jar)).toList();
  }

  /**
   * The JVM arguments that map {@code archive} of a JVM running {@code jars}, or write it when the
   * JVM exits if there is none; one older than a jar is deleted first.
   */
  static List<String> archiveArguments(Path archive, List<Path> jars) {
    deleteIfOlder(archive, jars);
    return List.of(
        "-XX:SharedArchiveFile=" + archive,
        "-XX:+AutoCreateSharedArchive",
        "-Xlog:cds=off,cds+dynamic=off");
  }

  /**
   * What a JVM running {@code jars} starts from: on JDK 25 and later an AOT cache ({@code
   * <name>-jdk-<version>.aot} in {@code dir}, JEP 483 and 514: classes loaded and linked, and their
   * profiles, from the run that wrote it), else the class-data archive of {@link #archiveArguments}
   * ({@code <name>.jsa}). Either is written when the JVM exits if there is none; one older than a
   * jar is deleted first, and so is a cache of another JDK.
   *
   * <p>The AOT cache takes the JVM some 25 s to write as it exits (the JVM runs a second one that
   * assembles it) and is written under a name of its own, {@link StartUpCache#keep kept} only once
   * the JVM has exited by itself: a JVM killed halfway leaves no cache that would be taken for
   * whole, and the next start writes it again.
   */
  static StartUpCache startUpCache(Path dir, String name, List<Path> jars) {
    if (Runtime.version().feature() < 25) {
      return new StartUpCache(archiveArguments(dir.resolve(name + ".jsa"), jars), null, null);
    }
    String prefix = name + "-jdk-";
    Path cache = dir.resolve(prefix + Runtime.version() + ".aot");
    deleteOtherJdks(dir, prefix, cache);
    deleteIfOlder(cache, jars);
    if (Files.exists(cache)) {
      return new StartUpCache(List.of("-XX:AOTCache=" + cache, QUIET_AOT), null, null);
    }
    Path written = dir.resolve(cache.getFileName() + ".writing");
    return new StartUpCache(List.of("-XX:AOTCacheOutput=" + written, QUIET_AOT), written, cache);
  }

  /**
   * The arguments of {@link #startUpCache}, and where the JVM writes a new cache as it exits (null
   * when it maps one, or writes a class-data archive in place).
   */
  record StartUpCache(List<String> arguments, @Nullable Path written, @Nullable Path cache) {

    /** Whether the JVM writes a cache as it exits, which takes it a while. */
    boolean writtenAtExit() {
      return written != null;
    }

    /**
     * Puts the cache the JVM wrote where the next start maps it; call once the JVM has exited by
     * itself. Does nothing when it wrote none, or it was kept already.
     */
    void keep() {
      if (written == null || cache == null) {
        return;
      }
      try {
        Files.move(written, cache, StandardCopyOption.ATOMIC_MOVE);
      } catch (NoSuchFileException keptOrNeverWritten) {
        // nothing to keep
      } catch (IOException e) {
        throw new UncheckedIOException("cannot keep the start-up cache " + written, e);
      }
    }
  }

  /**
   * Deletes what another JDK wrote (its cache, one it was writing): a JVM does not map a cache
   * another JDK wrote, and would not write its own while one is there.
   */
  private static void deleteOtherJdks(Path dir, String prefix, Path cache) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.toList()) {
        String fileName = file.getFileName().toString();
        if (fileName.startsWith(prefix) && !fileName.startsWith(cache.getFileName().toString())) {
          Files.delete(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot look for old caches in " + dir, e);
    }
  }

  private static void deleteIfOlder(Path archive, List<Path> jars) {
    try {
      if (!Files.exists(archive)) {
        return;
      }
      FileTime written = Files.getLastModifiedTime(archive);
      for (Path jar : jars) {
        if (Files.getLastModifiedTime(jar).compareTo(written) > 0) {
          Files.delete(archive);
          return;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot check " + archive, e);
    }
  }

  private static Path applicationJar(Path dir, Path jar) {
    return dir.resolve(jar.getFileName());
  }

  private static boolean isFresh(Path dir, List<Path> jars) {
    try {
      for (Path jar : jars) {
        Path extracted = applicationJar(dir, jar);
        if (!Files.isRegularFile(extracted)
            || Files.getLastModifiedTime(extracted).compareTo(Files.getLastModifiedTime(jar)) < 0) {
          return false;
        }
      }
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
