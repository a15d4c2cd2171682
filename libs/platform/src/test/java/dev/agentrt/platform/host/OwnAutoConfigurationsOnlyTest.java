package dev.agentrt.platform.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.mock.env.MockEnvironment;

class OwnAutoConfigurationsOnlyTest {

  private static final String OF_AUTOCONFIGURE_JAR =
      "org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration";
  private static final String OF_KAFKA_JAR =
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration";
  private static final String NOT_IN_A_JAR = "dev.agentrt.platform.PlatformAutoConfiguration";

  @TempDir Path dir;

  @Test
  void aHostedServiceGetsTheAutoConfigurationsOfItsOwnJarsOnly() throws IOException {
    String autoconfigureJar =
        Path.of(
                AutoConfigurationImportFilter.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .getPath())
            .getFileName()
            .toString();
    Path applicationJar = applicationJar("lib/jspecify-1.0.0.jar lib/" + autoconfigureJar);

    boolean[] matches =
        filter(applicationJar.toString())
            .match(
                new String[] {OF_AUTOCONFIGURE_JAR, OF_KAFKA_JAR, NOT_IN_A_JAR, null, "no.Such"},
                null);

    // Kafka's auto-configuration is on the class path, but not in a jar this service ships;
    // what is not in a jar (or not found) is left to the other filters.
    assertThat(matches).containsExactly(true, false, true, true, true);
  }

  @Test
  void aServiceRunOnItsOwnGetsEverything() {
    boolean[] matches = filter(null).match(new String[] {OF_AUTOCONFIGURE_JAR, OF_KAFKA_JAR}, null);

    assertThat(matches).containsExactly(true, true);
  }

  private OwnAutoConfigurationsOnly filter(String applicationJar) {
    MockEnvironment environment = new MockEnvironment();
    if (applicationJar != null) {
      environment.setProperty(ServicesHost.APPLICATION_JAR, applicationJar);
    }
    OwnAutoConfigurationsOnly filter = new OwnAutoConfigurationsOnly();
    filter.setEnvironment(environment);
    filter.setBeanClassLoader(getClass().getClassLoader());
    return filter;
  }

  private Path applicationJar(String classPath) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
    Path jar = dir.resolve("service.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream ignored = new JarOutputStream(out, manifest)) {
      // a manifest is all the filter reads
    }
    return jar;
  }
}
