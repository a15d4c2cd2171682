package dev.agentrt.platform.host;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * One log file per service of a {@link ServicesHost}: each line goes to the file of the service
 * whose thread logged it. A service's threads are those its start-up thread made, and the threads
 * they made in turn (an inheritable thread-local names the service), which is every thread a Spring
 * context, its Kafka and MongoDB clients and its web server start. A line from a thread no service
 * made (the host's own, the JVM's shared pools) goes where it went before: the console.
 */
final class ServiceLogFiles extends UnsynchronizedAppenderBase<ILoggingEvent> {

  private static final InheritableThreadLocal<String> SERVICE = new InheritableThreadLocal<>();

  private final Map<String, FileAppender<ILoggingEvent>> files = new ConcurrentHashMap<>();
  private final Path dir;
  private final String pattern;
  private final List<Appender<ILoggingEvent>> console;

  private ServiceLogFiles(Path dir, String pattern, List<Appender<ILoggingEvent>> console) {
    this.dir = dir;
    this.pattern = pattern;
    this.console = console;
  }

  /** Marks the current thread, and every thread it makes from now on, as {@code service}'s. */
  static void belongTo(String service) {
    SERVICE.set(service);
  }

  /**
   * Puts itself in front of the root logger's appenders (Spring Boot's console): a service's line
   * goes to {@code <dir>/<service>.log}, written as the console wrote it.
   */
  static void install(Path dir) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    List<Appender<ILoggingEvent>> console = new ArrayList<>();
    root.iteratorForAppenders().forEachRemaining(console::add);
    String pattern =
        console.stream()
            .filter(OutputStreamAppender.class::isInstance)
            .map(appender -> ((OutputStreamAppender<ILoggingEvent>) appender).getEncoder())
            .filter(PatternLayoutEncoder.class::isInstance)
            .map(encoder -> ((PatternLayoutEncoder) encoder).getPattern())
            .findFirst()
            .orElse("%d %5p [%t] %logger{36} : %m%n");
    ServiceLogFiles routing = new ServiceLogFiles(dir, pattern, console);
    routing.setContext(context);
    routing.setName("SERVICE_FILES");
    routing.start();
    root.addAppender(routing);
    console.forEach(root::detachAppender);
  }

  @Override
  protected void append(ILoggingEvent event) {
    String service = SERVICE.get();
    if (service == null) {
      console.forEach(appender -> appender.doAppend(event));
    } else {
      files.computeIfAbsent(service, this::open).doAppend(event);
    }
  }

  private FileAppender<ILoggingEvent> open(String name) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(getContext());
    encoder.setPattern(pattern);
    encoder.start();
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(getContext());
    file.setName(name);
    file.setFile(dir.resolve(name + ".log").toString());
    file.setEncoder(encoder);
    file.start();
    return file;
  }

  @Override
  public void stop() {
    files.values().forEach(FileAppender::stop);
    super.stop();
  }
}
