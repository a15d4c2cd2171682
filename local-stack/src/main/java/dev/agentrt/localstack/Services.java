package dev.agentrt.localstack;

import java.nio.file.Path;
import java.util.List;

/** The six services of the product, in start-up order, with their default HTTP ports. */
public final class Services {

  /** Service names; {@code services/<name>/target/<name>.jar} is each one's executable jar. */
  public static final List<String> ALL =
      List.of("orchestrator", "agent-init", "agent-loop", "tool-runner", "finalizer", "notifier");

  private static final int FIRST_PORT = 8080;

  private Services() {}

  /** 8080 for the orchestrator, then 8081..8085 in the order of {@link #ALL}. */
  public static int defaultPort(String name) {
    return FIRST_PORT + ALL.indexOf(known(name));
  }

  /** {@code <repoRoot>/services/<name>/target/<name>.jar}. */
  public static Path jar(Path repoRoot, String name) {
    String service = known(name);
    return repoRoot
        .resolve("services")
        .resolve(service)
        .resolve("target")
        .resolve(service + ".jar");
  }

  private static String known(String name) {
    if (!ALL.contains(name)) {
      throw new IllegalArgumentException("unknown service " + name + "; known: " + ALL);
    }
    return name;
  }
}
