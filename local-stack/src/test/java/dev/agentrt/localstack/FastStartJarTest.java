package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
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

  private Path file(String name, Instant modified) throws IOException {
    return file(name, FileTime.from(modified));
  }

  private Path file(String name, FileTime modified) throws IOException {
    Path file = Files.writeString(dir.resolve(name), name);
    Files.setLastModifiedTime(file, modified);
    return file;
  }
}
