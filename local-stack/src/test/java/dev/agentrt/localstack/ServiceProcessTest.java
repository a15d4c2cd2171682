package dev.agentrt.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProcessTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path repoRoot;
  private Path logFile;

  /** {@code services/orchestrator/target/orchestrator.jar} that runs {@link FakeService}. */
  @BeforeEach
  void fakeServiceJar() throws Exception {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeService.class.getName());
    manifest
        .getMainAttributes()
        .put(
            Attributes.Name.CLASS_PATH,
            FakeService.class.getProtectionDomain().getCodeSource().getLocation().toString());
    Path jar = Services.jar(repoRoot, "orchestrator");
    Files.createDirectories(jar.getParent());
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream unused = new JarOutputStream(out, manifest)) {
      // the manifest is all it needs
    }
    logFile = repoRoot.resolve("logs/orchestrator.log");
  }

  @Test
  void becomesHealthyAndStopsGracefully() {
    ServiceProcess service = start(Map.of());

    service.awaitHealthy(TIMEOUT);
    assertThat(service.isAlive()).isTrue();
    assertThat(service.name()).isEqualTo("orchestrator");
    service.close();

    assertThat(service.isAlive()).isFalse();
    assertThat(logFile).content().contains("fake service starting");
  }

  @Test
  void closeAllAsksEveryServiceToStopAtOnce() throws IOException {
    Path barrier = Files.createDirectories(repoRoot.resolve("barrier"));
    List<ServiceProcess> services = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      services.add(
          ServiceProcess.start(
              repoRoot,
              "orchestrator",
              Ports.free(),
              Map.of("FAKE_STOP_BARRIER", barrier.toString(), "FAKE_STOP_PARTIES", "3"),
              repoRoot.resolve("logs/copy-" + i + ".log")));
    }
    services.forEach(service -> service.awaitHealthy(TIMEOUT));

    ServiceProcess.closeAll(services);

    // Each waited in its shutdown for the others to be asked too: closed one after the other, the
    // first would have been killed at the barrier after its grace period.
    assertThat(services).noneMatch(ServiceProcess::isAlive);
    for (int i = 0; i < 3; i++) {
      assertThat(repoRoot.resolve("logs/copy-" + i + ".log")).content().contains("released");
    }
  }

  @Test
  void byDefaultTheJvmStartsFast() {
    try (ServiceProcess service = start(Map.of())) {
      service.awaitHealthy(TIMEOUT);
    }

    assertThat(logFile).content().contains("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
  }

  @Test
  void productionModeRunsTheJvmWithItsDefaultsAndTheGivenOptions() {
    try (ServiceProcess service =
        ServiceProcess.start(
            repoRoot,
            "orchestrator",
            Ports.free(),
            Map.of(),
            logFile,
            ServiceProcess.JvmMode.PRODUCTION,
            List.of("-Dbench.marker=1"))) {
      service.awaitHealthy(TIMEOUT);
      assertThat(ProcessHandle.of(service.pid())).isPresent();
    }

    assertThat(logFile)
        .content()
        .contains("-Dbench.marker=1")
        .doesNotContain("TieredStopAtLevel")
        .doesNotContain("UseSerialGC");
  }

  @Test
  void killLeavesNoProcess() {
    ServiceProcess service = start(Map.of());
    service.awaitHealthy(TIMEOUT);

    service.kill();

    assertThat(service.isAlive()).isFalse();
    assertThat(ProcessHandle.current().children()).isEmpty();
  }

  @Test
  void startsAgainAfterAKillOnTheSamePortWithTheSameEnvironment() {
    ServiceProcess first = start(Map.of());
    first.awaitHealthy(TIMEOUT);
    assertThatThrownBy(first::startAgain).hasMessageContaining("still running");
    first.kill();

    ServiceProcess again = first.startAgain();
    again.awaitHealthy(TIMEOUT);

    assertThat(again.isAlive()).isTrue();
    assertThat(again.httpPort()).isEqualTo(first.httpPort());
    assertThat(logFile)
        .as("both runs append to the same log")
        .content()
        .containsPattern("(?s)fake service starting.*fake service starting");
    again.close();
  }

  @Test
  void reportsAnEarlyExitWithTheTailOfTheLog() {
    ServiceProcess service = start(Map.of("FAKE_MODE", "crash"));

    assertThatThrownBy(() -> service.awaitHealthy(TIMEOUT))
        .hasMessageContaining("orchestrator exited with code 3 before becoming healthy")
        .hasMessageContaining(logFile.toString())
        .hasMessageEndingWith("APPLICATION FAILED TO START");
  }

  @Test
  void givesUpAfterTheTimeout() {
    try (ServiceProcess service = start(Map.of("FAKE_MODE", "silent"))) {
      assertThatThrownBy(() -> service.awaitHealthy(Duration.ofSeconds(1)))
          .hasMessageStartingWith("orchestrator did not become healthy within 1 s");
    }
  }

  @Test
  void saysHowToBuildAMissingJar() throws IOException {
    Files.delete(Services.jar(repoRoot, "orchestrator"));

    assertThatThrownBy(() -> start(Map.of()))
        .hasMessage(
            "services/orchestrator/target/orchestrator.jar is missing; build with ./mvnw"
                + " -DskipTests package");
  }

  private ServiceProcess start(Map<String, String> env) {
    return ServiceProcess.start(repoRoot, "orchestrator", Ports.free(), env, logFile);
  }
}
