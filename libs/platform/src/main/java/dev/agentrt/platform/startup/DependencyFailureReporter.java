package dev.agentrt.platform.startup;

import org.springframework.boot.SpringBootExceptionReporter;
import org.springframework.context.ConfigurableApplicationContext;

/** Reports an unreachable Kafka or MongoDB as a single line on stderr, without a stack trace. */
public class DependencyFailureReporter implements SpringBootExceptionReporter {

  public DependencyFailureReporter(ConfigurableApplicationContext context) {}

  @Override
  public boolean reportException(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof DependencyUnavailableException) {
        System.err.println("error: " + t.getMessage());
        return true;
      }
    }
    return false;
  }
}
