package dev.agentrt.platform.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentrt.platform.host.ServicesHost.HostedService;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ServicesHostTest {

  @Test
  void readsOneGroupPerServiceWithItsOwnArguments() {
    List<HostedService> services =
        ServicesHost.parse(
            List.of(
                "orchestrator",
                "/app/orchestrator.jar",
                "--server.port=8080",
                "--",
                "agent-init",
                "/app/agent-init.jar",
                "--server.port=8081",
                "--server.address=127.0.0.1"));

    assertThat(services)
        .containsExactly(
            new HostedService(
                "orchestrator", Path.of("/app/orchestrator.jar"), List.of("--server.port=8080")),
            new HostedService(
                "agent-init",
                Path.of("/app/agent-init.jar"),
                List.of("--server.port=8081", "--server.address=127.0.0.1")));
  }

  @Test
  void aServiceWithoutItsJarIsAnError() {
    assertThatThrownBy(() -> ServicesHost.parse(List.of("orchestrator", "/app/o.jar", "--", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a service needs a name and a jar: [x]");
  }

  @Test
  void aServiceReadsItsOwnConfigurationAndServesOnlyItsOwnStaticContent() {
    HostedService service =
        new HostedService("agent-init", Path.of("/app/agent-init.jar"), List.of("--server.port=1"));

    assertThat(service.mainArguments(false))
        .startsWith("--server.port=1")
        .contains(
            "--agentrt.host.application-jar=/app/agent-init.jar",
            "--spring.config.location=jar:"
                + Path.of("/app/agent-init.jar").toUri()
                + "!/application.yml,optional:file:./,optional:file:./config/",
            "--spring.web.resources.add-mappings=false");
    assertThat(service.mainArguments(true))
        .doesNotContain("--spring.web.resources.add-mappings=false");
  }
}
