package dev.agentrt.systemtests;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A Node.js script of {@code system-tests/src/test/js} run as a process: its output is printed and
 * its exit status returned. When Node.js 20+, the folder's {@code node_modules} ({@code npm ci}) or
 * a program the test needs is missing, the test is skipped with the reason ({@code .ci/run}
 * installs them).
 */
final class NodeScript {

  static final Path FOLDER =
      Path.of(System.getProperty("agentrt.repo.root", ".."), "system-tests/src/test/js");

  record Result(int exitStatus, String output) {}

  private NodeScript() {}

  /** Skips the test unless Node.js 20+ and the folder's npm packages are installed. */
  static void assumeInstalled(String... packages) {
    String nodeMissing = nodeMissing();
    assumeTrue(nodeMissing == null, nodeMissing);
    for (String npmPackage : packages) {
      assumeTrue(
          Files.isDirectory(FOLDER.resolve("node_modules").resolve(npmPackage)),
          npmPackage + " is not installed in " + FOLDER + "; run: npm ci --prefix " + FOLDER);
    }
  }

  /** Why Node.js 20 or newer cannot run here, or null when it can. */
  static @Nullable String nodeMissing() {
    String version = run(List.of("node", "--version"), Duration.ofSeconds(20));
    return version != null && version.matches("(?s)v(\\d+)\\..*") && major(version) >= 20
        ? null
        : "Node.js 20 or newer is not on the PATH (found: "
            + version
            + "); .ci/run installs it, or apt-get install nodejs npm";
  }

  /** Skips the test unless this program is there. */
  static void assumeProgram(Path program, String howToInstall) {
    assumeTrue(Files.isExecutable(program), program + " is missing; " + howToInstall);
  }

  static Result run(Duration timeout, String script, String... arguments) {
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(arguments));
    try {
      Path log = Files.createTempFile("node-script", ".log");
      Process process =
          new ProcessBuilder(command)
              .directory(FOLDER.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!ended) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      Files.delete(log);
      System.out.println("--- node " + script + " ---\n" + output + "--- end of " + script);
      if (!ended) {
        throw new AssertionError(script + " did not end within " + timeout + ":\n" + output);
      }
      return new Result(process.exitValue(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int major(String version) {
    return Integer.parseInt(version.substring(1, version.indexOf('.')));
  }

  /** The output of a command, or null when it cannot be run. */
  private static String run(List<String> command, Duration timeout) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return null;
      }
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
