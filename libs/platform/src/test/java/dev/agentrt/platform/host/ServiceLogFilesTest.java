package dev.agentrt.platform.host;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class ServiceLogFilesTest {

  private static final org.slf4j.Logger LOG = LoggerFactory.getLogger(ServiceLogFilesTest.class);

  @TempDir Path dir;

  private final Logger root =
      ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(Logger.ROOT_LOGGER_NAME);
  private final List<Appender<ILoggingEvent>> before = new ArrayList<>();
  private final ListAppender<ILoggingEvent> console = new ListAppender<>();

  @BeforeEach
  void routeThisJvmsLogging() {
    root.iteratorForAppenders().forEachRemaining(before::add);
    console.start();
    root.addAppender(console);
    ServiceLogFiles.install(dir);
  }

  @AfterEach
  void restoreIt() {
    List<Appender<ILoggingEvent>> installed = new ArrayList<>();
    root.iteratorForAppenders().forEachRemaining(installed::add);
    installed.forEach(
        appender -> {
          root.detachAppender(appender);
          appender.stop();
        });
    before.forEach(root::addAppender);
  }

  @Test
  void eachLineGoesToTheFileOfTheServiceWhoseThreadLoggedIt() throws Exception {
    Thread alpha =
        Thread.ofPlatform()
            .start(
                () -> {
                  ServiceLogFiles.belongTo("alpha");
                  LOG.info("alpha starts");
                  // threads the service makes, platform or virtual, are the service's too
                  join(Thread.ofPlatform().start(() -> LOG.info("alpha's consumer thread")));
                  join(Thread.ofVirtual().start(() -> LOG.info("alpha's virtual thread")));
                });
    Thread beta =
        Thread.ofPlatform()
            .start(
                () -> {
                  ServiceLogFiles.belongTo("beta");
                  LOG.info("beta starts");
                });
    alpha.join();
    beta.join();
    LOG.info("the host itself");

    assertThat(lines("alpha"))
        .hasSize(3)
        .anyMatch(l -> l.contains("alpha starts") && l.contains("ServiceLogFilesTest"))
        .anyMatch(l -> l.contains("alpha's consumer thread"))
        .anyMatch(l -> l.contains("alpha's virtual thread"));
    assertThat(lines("beta")).singleElement().asString().contains("beta starts");
    // other tests' clients (a Kafka producer reconnecting) may still log here on their own threads
    assertThat(console.list)
        .filteredOn(event -> event.getLoggerName().equals(ServiceLogFilesTest.class.getName()))
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly("the host itself");
  }

  private List<String> lines(String service) throws IOException {
    return Files.readAllLines(dir.resolve(service + ".log"));
  }

  private static void join(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
