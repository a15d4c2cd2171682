package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FastStartJarTest {

  private static final FileTime BUILT = FileTime.from(Instant.parse("2026-11-26T10:00:00Z"));

  @TempDir Path dir;

  @Test
  void anArchiveOlderThanAJarItWasWrittenForIsDeletedSoThatTheJvmWritesItAgain()
      throws IOException {
    Path jar = file("service.jar", BUILT);
    Path other = file("other.jar", BUILT.toInstant().minusSeconds(60));
    Path archive = file("service.jsa", BUILT.toInstant().minusSeconds(1));

    List<String> arguments = FastStartJar.archiveArguments(archive, List.of(other, jar));

    assertThat(archive).doesNotExist();
    assertThat(arguments)
        .contains("-XX:SharedArchiveFile=" + archive, "-XX:+AutoCreateSharedArchive");
  }

  @Test
  void anArchiveWrittenAfterItsJarsIsKept() throws IOException {
    Path jar = file("service.jar", BUILT);
    Path archive = file("service.jsa", BUILT.toInstant().plusSeconds(30));

    FastStartJar.archiveArguments(archive, List.of(jar));

    assertThat(archive).exists();
  }

  @Test
  void onJdk25AndLaterANewCacheIsWrittenUnderANameOfItsOwnAndKeptOnlyWhenAskedTo()
      throws IOException {
    assumeTrue(Runtime.version().feature() >= 25, "the AOT cache needs JDK 25 (JEP 514)");
    Path jar = file("service.jar", BUILT);

    FastStartJar.StartUpCache cache = FastStartJar.startUpCache(dir, "services", List.of(jar));

    Path kept = dir.resolve("services-jdk-" + Runtime.version() + ".aot");
    Path writing = dir.resolve(kept.getFileName() + ".writing");
    assertThat(cache.writtenAtExit()).isTrue();
    assertThat(cache.arguments()).contains("-XX:AOTCacheOutput=" + writing);
    Files.writeString(writing, "written as the JVM exited");
    cache.keep();
    cache.keep(); // each of the services in the JVM keeps it: once is enough
    assertThat(kept).hasContent("written as the JVM exited");
    assertThat(writing).doesNotExist();
  }

  @Test
  void onJdk25AndLaterACacheWrittenAfterItsJarsIsMappedAndOneOlderOrOfAnotherJdkIsDeleted()
      throws IOException {
    assumeTrue(Runtime.version().feature() >= 25, "the AOT cache needs JDK 25 (JEP 514)");
    Path jar = file("service.jar", BUILT);
    Path fresh = file("fresh-jdk-" + Runtime.version() + ".aot", BUILT.toInstant().plusSeconds(30));
    Path stale = file("stale-jdk-" + Runtime.version() + ".aot", BUILT.toInstant().minusSeconds(1));
    Path otherJdk = file("fresh-jdk-24.0.1+9.aot", BUILT.toInstant().plusSeconds(30));

    FastStartJar.StartUpCache mapped = FastStartJar.startUpCache(dir, "fresh", List.of(jar));
    FastStartJar.StartUpCache writtenAgain = FastStartJar.startUpCache(dir, "stale", List.of(jar));

    assertThat(mapped.arguments()).contains("-XX:AOTCache=" + fresh);
    assertThat(mapped.writtenAtExit()).isFalse();
    assertThat(stale).doesNotExist();
    assertThat(writtenAgain.writtenAtExit()).isTrue();
    assertThat(otherJdk).doesNotExist();
  }

  /**
   * A real JVM: its first run writes the cache as it exits, the next one loads its classes from it
   * ({@code -Xlog:class+load} says where each class came from).
   */
  @Test
  void theNextJvmLoadsItsClassesFromTheCacheTheFirstWroteAsItExited() throws Exception {
    assumeTrue(Runtime.version().feature() >= 25, "the AOT cache needs JDK 25 (JEP 514)");
    Path jar = dir.resolve("hello.jar");
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Hello.class.getName());
    String entry = Hello.class.getName().replace('.', '/') + ".class";
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
        InputStream bytes = Hello.class.getResourceAsStream("/" + entry)) {
      out.putNextEntry(new JarEntry(entry));
      bytes.transferTo(out);
    }

    FastStartJar.StartUpCache first = FastStartJar.startUpCache(dir, "hello", List.of(jar));
    assertThat(run(first, jar)).contains("hello");
    first.keep();
    FastStartJar.StartUpCache next = FastStartJar.startUpCache(dir, "hello", List.of(jar));

    assertThat(next.writtenAtExit()).isFalse();
    assertThat(run(next, jar))
        .containsPattern(Pattern.quote(Hello.class.getName()) + " source: shared objects file");
  }

  /** What the cache test's JVM runs. */
  public static final class Hello {
    public static void main(String[] args) {
      System.out.println("hello");
    }
  }

  private static String run(FastStartJar.StartUpCache cache, Path jar) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    command.addAll(cache.arguments());
    command.addAll(List.of("-Xlog:class+load=info", "-jar", jar.toString()));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(output).isZero();
    return output;
  }

  private Path file(String name, Instant modified) throws IOException {
    return file(name, FileTime.from(modified));
  }

  private Path file(String name, FileTime modified) throws IOException {
    Path file = Files.writeString(dir.resolve(name), name);
    Files.setLastModifiedTime(file, modified);
    return file;
  }
}
