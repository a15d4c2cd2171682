package dev.agentrt.platform.host;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.springframework.boot.logging.LoggingInitializationContext;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.core.env.StandardEnvironment;

/**
 * Runs several services in one JVM, each its own Spring application context with its own
 * configuration, web server, Kafka and MongoDB clients, as its own executable jar would run it:
 * what {@code ./run.sh} does by default, so that the classes the six services share are loaded,
 * compiled and held once (README: Start-up time). The class path is the services' application jars,
 * whose {@code Class-Path} brings their libraries (extracted with Spring Boot's {@code
 * jarmode=tools} into one directory, so that a library all of them use is one jar).
 *
 * <p>Arguments: {@code --logs=<dir>}, then one group per service, separated by {@code --}: its
 * name, its application jar, then its own arguments (e.g. {@code --server.port=8081}). Each service
 * is started on a thread of its own, all at once; its log lines go to {@code <dir>/<name>.log}. If
 * one fails to start, the host stops them all and exits with status 1.
 */
public final class ServicesHost {

  /** The property naming a hosted service's application jar ({@link OwnAutoConfigurationsOnly}). */
  public static final String APPLICATION_JAR = "agentrt.host.application-jar";

  private static final String SEPARATOR = "--";
  private static final String LOGS = "--logs=";

  private ServicesHost() {}

  /** One service: its name, application jar and its own arguments. */
  record HostedService(String name, Path jar, List<String> args) {

    /**
     * What its main method is given: its own arguments, then what makes it see its own part of the
     * class path: its configuration (every application jar holds an application.yml; the other
     * places Spring Boot looks stay), its auto-configurations ({@link OwnAutoConfigurationsOnly})
     * and its static web content, if it has any (the orchestrator's UI is no other service's).
     */
    List<String> mainArguments(boolean hasStaticContent) {
      List<String> all = new ArrayList<>(args);
      all.add("--" + APPLICATION_JAR + "=" + jar);
      all.add(
          "--spring.config.location=jar:%s!/application.yml,optional:file:./,optional:file:./config/"
              .formatted(jar.toUri()));
      if (!hasStaticContent) {
        all.add("--spring.web.resources.add-mappings=false");
      }
      // Each service has a log file of its own (ServiceLogFiles); one application name for the
      // JVM's logging would name them all alike.
      all.add("--logging.include-application-name=false");
      all.add("--spring.main.banner-mode=log");
      return all;
    }
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length == 0 || !args[0].startsWith(LOGS)) {
      System.err.println(
          "usage: ServicesHost --logs=<dir> <name> <application jar> [args…] [-- <name> …]");
      System.exit(2);
    }
    Path logs = Path.of(args[0].substring(LOGS.length()));
    List<HostedService> services = parse(List.of(args).subList(1, args.length));
    initializeLogging();
    ServiceLogFiles.install(logs);
    List<Thread> starts = new ArrayList<>();
    List<String> failed = Collections.synchronizedList(new ArrayList<>());
    for (HostedService service : services) {
      starts.add(
          Thread.ofPlatform()
              .name(service.name() + "-start")
              .start(
                  () -> {
                    ServiceLogFiles.belongTo(service.name());
                    if (!start(service)) {
                      failed.add(service.name());
                    }
                  }));
    }
    for (Thread start : starts) {
      start.join();
    }
    if (!failed.isEmpty()) {
      System.err.println("failed to start: " + String.join(", ", failed) + "; see their logs");
      System.exit(1);
    }
  }

  static List<HostedService> parse(List<String> args) {
    List<HostedService> services = new ArrayList<>();
    List<String> group = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals(SEPARATOR)) {
        services.add(service(group));
        group.clear();
      } else {
        group.add(arg);
      }
    }
    services.add(service(group));
    return services;
  }

  private static HostedService service(List<String> group) {
    if (group.size() < 2) {
      throw new IllegalArgumentException("a service needs a name and a jar: " + group);
    }
    return new HostedService(
        group.get(0),
        Path.of(group.get(1)).toAbsolutePath(),
        List.copyOf(group.subList(2, group.size())));
  }

  /**
   * Sets up logging once for all: a service's context finds it done and only applies its levels
   * (Spring Boot's logging system initialises a JVM once), where six contexts starting at once
   * would each reset it.
   */
  private static void initializeLogging() {
    StandardEnvironment environment = new StandardEnvironment();
    LoggingSystem logging = LoggingSystem.get(ServicesHost.class.getClassLoader());
    logging.getSystemProperties(environment).apply(null);
    logging.beforeInitialize();
    logging.initialize(new LoggingInitializationContext(environment), null, null);
  }

  /** Runs the service's main method; false if it threw (Spring Boot has logged why). */
  private static boolean start(HostedService service) {
    String mainClass;
    boolean hasStaticContent;
    try (JarFile jar = new JarFile(service.jar().toFile())) {
      mainClass = jar.getManifest().getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
      hasStaticContent = jar.getEntry("static/") != null;
    } catch (IOException e) {
      System.err.println(service.name() + ": cannot read " + service.jar() + ": " + e);
      return false;
    }
    try {
      Class.forName(mainClass)
          .getMethod("main", String[].class)
          .invoke(null, (Object) service.mainArguments(hasStaticContent).toArray(String[]::new));
      return true;
    } catch (InvocationTargetException e) {
      System.err.println(service.name() + " failed to start: " + e.getCause());
      return false;
    } catch (ReflectiveOperationException e) {
      System.err.println(service.name() + ": " + e);
      return false;
    }
  }
}
